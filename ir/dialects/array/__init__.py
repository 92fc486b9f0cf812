"""The ``array`` dialect: tensor-level ops, one per primitive, like a jaxpr.

One module per op family: ``base`` (the ``ArrayOp`` base, ``array.constant`` and the folding
helpers), ``elementwise`` (unary, binary, compare, ``select``, ``convert``), ``shape`` (data
movement), ``reduce`` (``reduce``, ``argreduce``, ``scan``), ``index`` (``gather``,
``gather_nd``, ``scatter_nd``, ``diagonal``), ``linalg`` (``dot_general``), ``sort``
(``sort``, ``argsort``, ``searchsorted``), ``factor`` (``det``, ``solve``), ``decompose``
(``cholesky``, ``slogdet``, ``qr``, ``eigh``, ``svd``) and ``effects`` (``callback``: a call into
Python at run time; ``raise_if``: Python's error when a condition holds). Their op classes and
tables are names of this package too (``array.ReduceOp``, ``array.UNARY_OPS``), except the
one-line elementwise classes, which are ``elementwise.AddOp`` and so on, or ``UNARY_OPS[kind]``,
``BINARY_OPS[kind]``, ``COMPARE_OPS[kind]``.
"""

from jitcore.ir.dialects.array.base import (  # noqa: F401  (re-exported)
    FOLD_LIMIT,
    ArrayOp,
    ConstantOp,
    IotaOp,
)
from jitcore.ir.dialects.array.decompose import (  # noqa: F401  (re-exported)
    CholeskyOp,
    EighOp,
    EigOp,
    QrOp,
    SlogdetOp,
    SvdOp,
)
from jitcore.ir.dialects.array.effects import CallbackOp, RaiseIfOp  # noqa: F401  (re-exported)
from jitcore.ir.dialects.array.elementwise import (  # noqa: F401  (re-exported)
    BINARY,
    BINARY_OPS,
    BITWISE,
    COMPARE,
    COMPARE_OPS,
    COMPLEX_KINDS,
    COMPLEX_ONLY,
    COMPLEX_TO_PART,
    FLOAT_BINARY,
    FLOAT_FUNCTIONS,
    FLOAT_ONLY,
    INTEGER_FUNCTIONS,
    INTEGER_UNARY,
    NUMPY_UFUNCS,
    PREDICATES,
    SPECIAL_FUNCTIONS,
    UNARY,
    UNARY_OPS,
    BinaryOp,
    BitcastOp,
    CompareOp,
    ComplexOp,
    ConvertOp,
    ElementwiseOp,
    SelectOp,
    UnaryOp,
)
from jitcore.ir.dialects.array.factor import DetOp, SolveOp  # noqa: F401  (re-exported)
from jitcore.ir.dialects.array.index import (  # noqa: F401  (re-exported)
    SCATTER_MODES,
    CompactOp,
    DiagonalOp,
    GatherNdOp,
    GatherOp,
    HeadGatherOp,
    HeadRowsOp,
    HeadScatterOp,
    HeadSumOp,
    ScatterNdOp,
    WindowSumOp,
    gather_nd_shape,
    numpy_gather_nd,
)
from jitcore.ir.dialects.array.linalg import (  # noqa: F401  (re-exported)
    DotGeneralOp,
    free_dims,
)
from jitcore.ir.dialects.array.reduce import (  # noqa: F401  (re-exported)
    ARGREDUCE,
    REDUCE,
    SCAN,
    ArgReduceOp,
    ReduceOp,
    ScanOp,
)
from jitcore.ir.dialects.array.shape import (  # noqa: F401  (re-exported)
    BroadcastInDimOp,
    ConcatenateOp,
    PadOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
    UpdateSliceOp,
)
from jitcore.ir.dialects.array.sort import (  # noqa: F401  (re-exported)
    ArgPartitionOp,
    ArgSortOp,
    HeadSortOp,
    PartitionAtOp,
    PartitionOp,
    SearchSortedOp,
    SortOp,
)
