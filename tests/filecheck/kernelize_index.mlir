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
