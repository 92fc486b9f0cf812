// Powers to a constant exponent (passes/canonicalize.py, _power_of_constant): the float
// exponents 2, -1, 1 and 0, whose correctly rounded powers are x * x, 1 / x, x and 1, and
// integer exponents up to 16 by squaring; every other exponent keeps its pow.

// x ** 2.0, the exponent broadcast from a 0-d constant: x * x.
// RUN: canonicalize,dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<8xf32>):
// CHECK-NEXT:   [[M:%[0-9]+]] = "array.mul"([[X]], [[X]])
// CHECK-NEXT:   "func.return"([[M]])
"func.func"() ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "array.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %1 = "array.broadcast_in_dim"(%0) {broadcast_dimensions = []} : (tensor<f32>) -> tensor<8xf32>
  %2 = "array.pow"(%arg0, %1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%2) : (tensor<8xf32>) -> ()
}) {function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "square"} : () -> ()

// -----
// x ** -1.0 with a dense splat exponent: 1 / x.
// RUN: canonicalize,dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<2x4xf64>):
// CHECK-NEXT:   [[ONE:%[0-9]+]] = "array.constant"() {value = dense<1.0> : tensor<2x4xf64>}
// CHECK-NEXT:   [[R:%[0-9]+]] = "array.div"([[ONE]], [[X]])
// CHECK-NEXT:   "func.return"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<2x4xf64>):
  %0 = "array.constant"() {value = dense<-1.0> : tensor<2x4xf64>} : () -> tensor<2x4xf64>
  %1 = "array.pow"(%arg0, %0) : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  "func.return"(%1) : (tensor<2x4xf64>) -> ()
}) {function_type = (tensor<2x4xf64>) -> tensor<2x4xf64>, sym_name = "reciprocal"} : () -> ()

// -----
// x ** 1.0 is x; x ** -0.0 is 1, NaN included.
// RUN: canonicalize,dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<8xf32>):
// CHECK-NEXT:   [[ONE:%[0-9]+]] = "array.constant"() {value = dense<1.0> : tensor<8xf32>}
// CHECK-NEXT:   "func.return"([[X]], [[ONE]])
"func.func"() ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "array.constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %1 = "array.pow"(%arg0, %0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = "array.constant"() {value = dense<-0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %3 = "array.pow"(%arg0, %2) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%1, %3) : (tensor<8xf32>, tensor<8xf32>) -> ()
}) {function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "one_and_zero"} : () -> ()

// -----
// Not x ** 3.0 (x * x * x rounds twice), x ** 0.5 (sqrt differs at -0.0 and -inf) or an
// exponent that is not one value.
// RUN: canonicalize,dce
// CHECK-NOT: "array.mul"
// CHECK:     "array.pow"
// CHECK:     "array.pow"
// CHECK:     "array.pow"
// CHECK-NOT: "array.mul"
"func.func"() ({
^bb0(%arg0: tensor<2xf32>):
  %0 = "array.constant"() {value = dense<3.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "array.pow"(%arg0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = "array.constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32>
  %3 = "array.pow"(%arg0, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %4 = "array.constant"() {value = dense<[2.0, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %5 = "array.pow"(%arg0, %4) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "func.return"(%1, %3, %5) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
}) {function_type = (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>), sym_name = "kept"} : () -> ()

// -----
// An integer x ** 5 by squaring: x*x, squared, times x (products wrap as the power loop's).
// RUN: canonicalize,dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<8xi8>):
// CHECK-NEXT:   [[A:%[0-9]+]] = "array.mul"([[X]], [[X]])
// CHECK-NEXT:   [[B:%[0-9]+]] = "array.mul"([[A]], [[A]])
// CHECK-NEXT:   [[C:%[0-9]+]] = "array.mul"([[B]], [[X]])
// CHECK-NEXT:   "func.return"([[C]])
"func.func"() ({
^bb0(%arg0: tensor<8xi8>):
  %0 = "array.constant"() {value = dense<5> : tensor<8xi8>} : () -> tensor<8xi8>
  %1 = "array.pow"(%arg0, %0) : (tensor<8xi8>, tensor<8xi8>) -> tensor<8xi8>
  "func.return"(%1) : (tensor<8xi8>) -> ()
}) {function_type = (tensor<8xi8>) -> tensor<8xi8>, sym_name = "int_power"} : () -> ()

// -----
// Integer exponents past 16 and negative ones keep the op.
// RUN: canonicalize,dce
// CHECK-NOT: "array.mul"
// CHECK:     "array.pow"
// CHECK:     "array.pow"
"func.func"() ({
^bb0(%arg0: tensor<8xi64>):
  %0 = "array.constant"() {value = dense<17> : tensor<8xi64>} : () -> tensor<8xi64>
  %1 = "array.pow"(%arg0, %0) : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
  %2 = "array.constant"() {value = dense<-1> : tensor<8xi64>} : () -> tensor<8xi64>
  %3 = "array.pow"(%arg0, %2) : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
  "func.return"(%1, %3) : (tensor<8xi64>, tensor<8xi64>) -> ()
}) {function_type = (tensor<8xi64>) -> (tensor<8xi64>, tensor<8xi64>), sym_name = "int_kept"} : () -> ()

// -----
// In a kernel body (after fusion): math.powf(x, 2.0) is arith.mulf(x, x), math.powf(x, -1.0)
// arith.divf(1.0, x), math.ipowi(n, 3) two arith.muli; math.powf(x, 3.0) stays.
// RUN: canonicalize,dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: f32, [[N:%arg[0-9]+]]: i32):
// CHECK-NEXT:   [[SQ:%[0-9]+]] = "arith.mulf"([[X]], [[X]])
// CHECK-NEXT:   [[ONE:%[0-9]+]] = "arith.constant"() {value = 1.0 : f32}
// CHECK-NEXT:   [[RE:%[0-9]+]] = "arith.divf"([[ONE]], [[X]])
// CHECK-NEXT:   [[N2:%[0-9]+]] = "arith.muli"([[N]], [[N]])
// CHECK-NEXT:   [[N3:%[0-9]+]] = "arith.muli"([[N2]], [[N]])
// CHECK-NEXT:   [[THREE:%[0-9]+]] = "arith.constant"() {value = 3.0 : f32}
// CHECK-NEXT:   [[CU:%[0-9]+]] = "math.powf"([[X]], [[THREE]])
"func.func"() ({
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xi32>):
  %10, %11, %12, %13 = "kernel.generic"(%arg0, %arg1) ({
  ^bb0(%arg2: f32, %arg3: i32):
    %1 = "arith.constant"() {value = 2.0 : f32} : () -> f32
    %2 = "math.powf"(%arg2, %1) : (f32, f32) -> f32
    %3 = "arith.constant"() {value = -1.0 : f32} : () -> f32
    %4 = "math.powf"(%arg2, %3) : (f32, f32) -> f32
    %5 = "arith.constant"() {value = 3 : i32} : () -> i32
    %6 = "math.ipowi"(%arg3, %5) : (i32, i32) -> i32
    %7 = "arith.constant"() {value = 3.0 : f32} : () -> f32
    %8 = "math.powf"(%arg2, %7) : (f32, f32) -> f32
    "kernel.yield"(%2, %4, %6, %8) : (f32, f32, i32, f32) -> ()
  }) {domain = [8], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<8xf32>, tensor<8xi32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>)
  "func.return"(%10, %11, %12, %13) : (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<8xi32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xf32>), sym_name = "scalar"} : () -> ()
