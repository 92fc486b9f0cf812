"""A sequence whose items a compiled loop can build from a traced position (``zip``,
``enumerate``, ``np.ndindex`` over traced arrays; the rows of a table, ``tables.py``)."""

from __future__ import annotations


class Indexed:
    """``zip``/``enumerate`` over traced arrays: a sequence of known length whose item ``i`` can
    be built for a traced ``i``, so a long ``for`` over it becomes one loop. Iterated in Python
    (a short loop), it gives the items ``zip``/``enumerate`` would."""

    def __init__(self, length: int, item):
        self.length, self.item = length, item

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        return self.item(i)

    def __iter__(self):
        return (self.item(i) for i in range(self.length))
