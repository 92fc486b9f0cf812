"""Every setting ``jitcore.config``'s docstring documents works through each of its three ways
in: attribute assignment, ``config.update`` and ``config.using`` (which puts the value back)."""

import re

import pytest

import jitcore as jc
from jitcore import config
from jitcore.errors import ConfigError

# The settings the module's docstring documents, as its bullets name them: "- ``name``: ...".
DOCUMENTED = re.findall(r"^- ``(\w+)``:", config.__doc__, re.MULTILINE)

# A value each setting accepts other than its default, and one it refuses.
OTHER = {
    "num_threads": 3,
    "parallel_threshold": 5,
    "chunk_size": 7,
    "traceback_filtering": False,
    "disk_cache": False,
    "cache_dir": "/tmp/jitcore-config-test",
    "cache_max_bytes": 1 << 20,
    "log_compiles": True,
    "max_signatures": 5,
    "backend": "cuda",
    "auto_static": False,
    "buffer_pool_bytes": 1 << 20,
}
BAD = {
    "num_threads": 0,
    "parallel_threshold": -1,
    "chunk_size": 0,
    "traceback_filtering": 1,
    "disk_cache": "yes",
    "cache_dir": "",
    "cache_max_bytes": -1,
    "log_compiles": 1,
    "max_signatures": 0,
    "backend": "tpu",
    "auto_static": "no",
    "buffer_pool_bytes": -1,
}


def test_the_docstring_documents_every_setting():
    assert sorted(DOCUMENTED) == sorted(OTHER) == sorted(BAD)


@pytest.mark.parametrize("name", DOCUMENTED)
def test_each_way_sets_and_checks_the_setting(name):
    before = getattr(jc.config, name)
    other = OTHER[name]
    try:
        with jc.config.using(**{name: other}):
            assert getattr(jc.config, name) == other
        assert getattr(jc.config, name) == before
        jc.config.update(name, other)
        assert getattr(jc.config, name) == other
        jc.config.update(name, before)
        assert getattr(jc.config, name) == before
        setattr(jc.config, name, other)
        assert getattr(jc.config, name) == other
    finally:
        setattr(jc.config, name, before)
    for refuse in (lambda: setattr(jc.config, name, BAD[name]), lambda: config.update(name, BAD[name])):
        with pytest.raises(ConfigError, match=name):
            refuse()
        assert getattr(jc.config, name) == before
    with pytest.raises(ConfigError, match=name), jc.config.using(**{name: BAD[name]}):
        pass
    assert getattr(jc.config, name) == before


def test_using_puts_back_settings_it_set_before_a_bad_one():
    before = jc.config.auto_static, jc.config.num_threads
    with (
        pytest.raises(ConfigError, match="num_threads"),
        jc.config.using(auto_static=not before[0], num_threads=0),
    ):
        pass
    assert (jc.config.auto_static, jc.config.num_threads) == before


def test_an_unknown_setting_is_refused_before_any_is_set():
    before = jc.config.auto_static
    with (
        pytest.raises(ConfigError, match="no setting 'autostatic'; its settings are .*auto_static"),
        jc.config.using(auto_static=not before, autostatic=False),
    ):
        pass
    assert jc.config.auto_static == before
