"""Messages about the statements after a break, continue or return under a traced condition
name the if the user wrote (the one that jumps), not the first statement it guards."""

import inspect

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError


def assigned_after_return(x):
    if x[0] > 0:
        return x
    y = x * 2
    if x[1] > 0:
        z = y
    return z


@pytest.mark.parametrize("fn, args", [(assigned_after_return, (np.ones(3),))])
def test_the_message_names_the_line_of_an_if_the_user_wrote(fn, args):
    lines, first = inspect.getsourcelines(fn)
    with pytest.raises(UnsupportedError) as e:
        jc.jit(fn)(*args)
    named = int(str(e.value).split(f"{__file__}:")[1].split(",")[0])
    assert lines[named - first].strip().startswith("if "), lines[named - first]
