// The kernel forms of argreduce, scan and diagonal (passes/kernelize/index.py).

// argmax of floats: one reduction kernel with two results (index, best value) from inits
// 0 and -inf. An element replaces the best when it is greater or NaN (ugt) while the best is
// not NaN (ord): the first maximum, or the first NaN, wins.
// RUN: kernelize
// CHECK:      %0, %1 = "kernel.generic"(%arg0) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: f32, [[BI:%arg[0-9]+]]: i64, [[BEST:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[GT:%[0-9]+]] = "arith.cmpf"([[X]], [[BEST]]) {predicate = "ugt"}
// CHECK-NEXT:   [[ORD:%[0-9]+]] = "arith.cmpf"([[BEST]], [[BEST]]) {predicate = "ord"}
// CHECK-NEXT:   [[TAKE:%[0-9]+]] = "arith.andi"([[GT]], [[ORD]])
// CHECK-NEXT:   [[POS:%[0-9]+]] = "kernel.index"() {dim = 1}
// CHECK-NEXT:   [[POS64:%[0-9]+]] = "arith.bitcast"([[POS]]) : (index) -> i64
// CHECK-NEXT:   [[I:%[0-9]+]] = "arith.select"([[TAKE]], [[POS64]], [[BI]])
// CHECK-NEXT:   [[V:%[0-9]+]] = "arith.select"([[TAKE]], [[X]], [[BEST]])
// CHECK-NEXT:   "kernel.yield"([[I]], [[V]])
// CHECK-NEXT: }) {domain = [4, 5], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], inits = [0 : i64, 0xFF800000 : f32], iterator_types = ["parallel", "reduction"]}
// CHECK:      "func.return"(%0)
"func.func"() ({
^bb0(%arg0: tensor<4x5xf32>):
  %0 = "array.argreduce"(%arg0) {axis = 1, kind = "max"} : (tensor<4x5xf32>) -> tensor<4xi64>
  "func.return"(%0) : (tensor<4xi64>) -> ()
}) {function_type = (tensor<4x5xf32>) -> tensor<4xi64>, sym_name = "argmax_of_floats"} : () -> ()

// -----
// argmin of unsigned integers along axis 0: a strict unsigned compare (ties keep the first)
// from the type's maximum.
// RUN: kernelize
// CHECK:      ^bb0([[X:%arg[0-9]+]]: ui8, [[BI:%arg[0-9]+]]: i64, [[BEST:%arg[0-9]+]]: ui8):
// CHECK-NEXT:   [[TAKE:%[0-9]+]] = "arith.cmpi"([[X]], [[BEST]]) {predicate = "ult"}
// CHECK-NEXT:   "kernel.index"() {dim = 0}
// CHECK:        inits = [0 : i64, 255 : ui8], iterator_types = ["reduction", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<4x5xui8>):
  %0 = "array.argreduce"(%arg0) {axis = 0, kind = "min"} : (tensor<4x5xui8>) -> tensor<5xi64>
  "func.return"(%0) : (tensor<5xi64>) -> ()
}) {function_type = (tensor<4x5xui8>) -> tensor<5xi64>, sym_name = "argmin_of_unsigned"} : () -> ()

// -----
// A scan is one kernel with a scan iterator: acc + x from -0.0 for a float sum (so that a
// leading -0.0 stays -0.0), acc * x from 1 for an integer product, and for a complex product
// the first element copied (1 * x is not x where a part is infinite).
// RUN: kernelize
// CHECK:      ^bb0([[X:%arg[0-9]+]]: f32, [[ACC:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[S:%[0-9]+]] = "arith.addf"([[ACC]], [[X]])
// CHECK-NEXT:   "kernel.yield"([[S]])
// CHECK-NEXT: }) {domain = [4, 5], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], inits = [-0.0 : f32], iterator_types = ["scan", "parallel"]}
// CHECK:      ^bb0([[Y:%arg[0-9]+]]: i16, [[ACC2:%arg[0-9]+]]: i16):
// CHECK-NEXT:   "arith.muli"([[ACC2]], [[Y]])
// CHECK:        inits = [1 : i16], iterator_types = ["scan"]}
// CHECK:      ^bb0([[Z:%arg[0-9]+]]: complex<f64>, [[ACC3:%arg[0-9]+]]: complex<f64>):
// CHECK:        [[PROD:%[0-9]+]] = "complex.create"
// CHECK-NEXT:   [[POS:%[0-9]+]] = "kernel.index"() {dim = 0}
// CHECK-NEXT:   [[ZERO:%[0-9]+]] = "arith.constant"() {value = 0 : index}
// CHECK-NEXT:   [[FIRST:%[0-9]+]] = "arith.cmpi"([[POS]], [[ZERO]]) {predicate = "eq"}
// CHECK-NEXT:   [[OUT:%[0-9]+]] = "arith.select"([[FIRST]], [[Z]], [[PROD]])
// CHECK-NEXT:   "kernel.yield"([[OUT]])
// CHECK-NEXT: }) {domain = [3], {{.*}}, inits = [(1.0, 0.0) : complex<f64>], iterator_types = ["scan"]}
"func.func"() ({
^bb0(%arg0: tensor<4x5xf32>, %arg1: tensor<6xi16>, %arg2: tensor<3xcomplex<f64>>):
  %0 = "array.scan"(%arg0) {axis = 0, kind = "sum"} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = "array.scan"(%arg1) {axis = 0, kind = "prod"} : (tensor<6xi16>) -> tensor<6xi16>
  %2 = "array.scan"(%arg2) {axis = 0, kind = "prod"} : (tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>>
  "func.return"(%0, %1, %2) : (tensor<4x5xf32>, tensor<6xi16>, tensor<3xcomplex<f64>>) -> ()
}) {function_type = (tensor<4x5xf32>, tensor<6xi16>, tensor<3xcomplex<f64>>) -> (tensor<4x5xf32>, tensor<6xi16>, tensor<3xcomplex<f64>>), sym_name = "scans"} : () -> ()

// -----
// A diagonal reads its operand through a map that repeats an iteration dim.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: f32):
// CHECK-NEXT:   "kernel.yield"([[X]])
// CHECK-NEXT: }) {domain = [3, 4], indexing_maps = [affine_map<(d0, d1) -> (d0, d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<3x4x3xf32>):
  %0 = "array.diagonal"(%arg0) {dims = [0, 1, 0]} : (tensor<3x4x3xf32>) -> tensor<3x4xf32>
  "func.return"(%0) : (tensor<3x4xf32>) -> ()
}) {function_type = (tensor<3x4x3xf32>) -> tensor<3x4xf32>, sym_name = "diagonal_repeats_a_dim"} : () -> ()

// -----
// A gather along axis 1 (x[:, i]) is a kernel over its result that reads x whole (an indexed
// input: no map, a tensor argument): the index array is read through a map, made a position by
// kernel.check_index (negative wraps, the first out of range is recorded), and x is read there
// by kernel.extract, its other dim at kernel.index.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: tensor<5x4xf64>, [[I:%arg[0-9]+]]: i64):
// CHECK-NEXT:   [[P:%[0-9]+]] = "kernel.check_index"([[I]]) {axis = 1, size = 4} : (i64) -> index
// CHECK-NEXT:   [[R:%[0-9]+]] = "kernel.index"() {dim = 0}
// CHECK-NEXT:   [[V:%[0-9]+]] = "kernel.extract"([[X]], [[R]], [[P]]) : (tensor<5x4xf64>, index, index) -> f64
// CHECK-NEXT:   "kernel.yield"([[V]])
// CHECK-NEXT: }) {domain = [5, 2, 3], indexed = [0], indexing_maps = [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<5x4xf64>, %arg1: tensor<2x3xi64>):
  %0 = "array.gather"(%arg0, %arg1) {axis = 1} : (tensor<5x4xf64>, tensor<2x3xi64>) -> tensor<5x2x3xf64>
  "func.return"(%0) : (tensor<5x2x3xf64>) -> ()
}) {function_type = (tensor<5x4xf64>, tensor<2x3xi64>) -> tensor<5x2x3xf64>, sym_name = "gather_along_axis_1"} : () -> ()

// -----
// With several index arrays NumPy reports the first bad index array by array, so each is
// checked first by a kernel of its own, in order, that yields its positions; the gather then
// reads those (broadcast through maps) unchecked.
// RUN: kernelize
// CHECK:      [[C0:%[0-9]+]] = "kernel.generic"(%arg1) ({
// CHECK-NEXT: ^bb0([[I:%arg[0-9]+]]: i64):
// CHECK-NEXT:   [[P:%[0-9]+]] = "kernel.check_index"([[I]]) {axis = 0, size = 5}
// CHECK-NEXT:   [[P64:%[0-9]+]] = "arith.bitcast"([[P]]) : (index) -> i64
// CHECK-NEXT:   "kernel.yield"([[P64]])
// CHECK:      [[C1:%[0-9]+]] = "kernel.generic"(%arg2) ({
// CHECK:        "kernel.check_index"({{%arg[0-9]+}}) {axis = 2, size = 6}
// CHECK:      "kernel.generic"(%arg0, [[C0]], [[C1]]) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: tensor<5x4x6xf32>, [[A:%arg[0-9]+]]: i64, [[B:%arg[0-9]+]]: i64):
// CHECK-NEXT:   [[PA:%[0-9]+]] = "arith.bitcast"([[A]]) : (i64) -> index
// CHECK-NEXT:   [[PB:%[0-9]+]] = "arith.bitcast"([[B]]) : (i64) -> index
// CHECK-NEXT:   [[R:%[0-9]+]] = "kernel.index"() {dim = 2}
// CHECK-NEXT:   "kernel.extract"([[X]], [[PA]], [[R]], [[PB]])
// CHECK:      }) {domain = [2, 3, 4], indexed = [0], indexing_maps = [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
"func.func"() ({
^bb0(%arg0: tensor<5x4x6xf32>, %arg1: tensor<2x1xi64>, %arg2: tensor<2x3xi64>):
  %0 = "array.gather_nd"(%arg0, %arg1, %arg2) {axes = [0, 2], position = 0} : (tensor<5x4x6xf32>, tensor<2x1xi64>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  "func.return"(%0) : (tensor<2x3x4xf32>) -> ()
}) {function_type = (tensor<5x4x6xf32>, tensor<2x1xi64>, tensor<2x3xi64>) -> tensor<2x3x4xf32>, sym_name = "gather_nd_checks_each_index_array_first"} : () -> ()

// -----
// A gather with no element to read (another dim of x is empty) still checks every index, as
// NumPy does: in a kernel of their own, since the gather's nest has no iteration.
// RUN: kernelize
// CHECK:      [[C:%[0-9]+]] = "kernel.generic"(%arg1) ({
// CHECK:        "kernel.check_index"({{%arg[0-9]+}}) {axis = 0, size = 3}
// CHECK:      "kernel.generic"(%arg0, [[C]]) ({
// CHECK-NOT:    "kernel.check_index"
// CHECK:      }) {domain = [2, 0], indexed = [0]
"func.func"() ({
^bb0(%arg0: tensor<3x0xf32>, %arg1: tensor<2xi64>):
  %0 = "array.gather"(%arg0, %arg1) {axis = 0} : (tensor<3x0xf32>, tensor<2xi64>) -> tensor<2x0xf32>
  "func.return"(%0) : (tensor<2x0xf32>) -> ()
}) {function_type = (tensor<3x0xf32>, tensor<2xi64>) -> tensor<2x0xf32>, sym_name = "empty_gather_checks_its_indices"} : () -> ()

// -----
// np.add.at(x, i, v) on complex numbers: a kernel over the updates whose result starts as a
// copy of x (an indexed input) and is written only by kernel.insert, which adds each update in
// turn (indexed result 3: no map, nothing yielded).
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1, %arg2) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: tensor<5x2xcomplex<f32>>, [[V:%arg[0-9]+]]: complex<f32>, [[I:%arg[0-9]+]]: i64):
// CHECK-NEXT:   [[P:%[0-9]+]] = "kernel.check_index"([[I]]) {axis = 0, size = 5}
// CHECK-NEXT:   [[C:%[0-9]+]] = "kernel.index"() {dim = 1}
// CHECK-NEXT:   "kernel.insert"([[V]], [[P]], [[C]]) {mode = "add", result = 0} : (complex<f32>, index, index) -> ()
// CHECK-NEXT:   "kernel.yield"() : () -> ()
// CHECK-NEXT: }) {copy_inputs = [0], domain = [3, 2], indexed = [0, 3], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>], iterator_types = ["parallel", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<5x2xcomplex<f32>>, %arg1: tensor<3x2xcomplex<f32>>, %arg2: tensor<3xi64>):
  %0 = "array.scatter_nd"(%arg0, %arg1, %arg2) {axes = [0], mode = "add", position = 0} : (tensor<5x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<3xi64>) -> tensor<5x2xcomplex<f32>>
  "func.return"(%0) : (tensor<5x2xcomplex<f32>>) -> ()
}) {function_type = (tensor<5x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<3xi64>) -> tensor<5x2xcomplex<f32>>, sym_name = "scatter_add_of_complex"} : () -> ()
