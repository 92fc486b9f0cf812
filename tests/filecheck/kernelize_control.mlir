// Kernel forms of array-level scf ops of scalar work (passes/kernelize/control.py): one kernel
// with an empty iteration space whose body runs the scf op on scalars.

// A sum of squares: the carried 0-d value becomes a carried f64; the element read x[i] is a
// check_index and an extract of the indexed input; the bound n is a scalar input.
// RUN: kernelize
// CHECK:      %[[K:[0-9]+]] = "kernel.generic"(%arg1, %arg0) ({
// CHECK-NEXT: ^bb0([[N:%arg[0-9]+]]: i64, [[X:%arg[0-9]+]]: tensor<8xf64>):
// CHECK:        [[R:%[0-9]+]] = "scf.for"({{%[0-9]+}}, [[N]], {{%[0-9]+}}, {{%[0-9]+}}) ({
// CHECK-NEXT:   ^bb0([[I:%arg[0-9]+]]: i64, [[ACC:%arg[0-9]+]]: f64):
// CHECK-NEXT:     [[P:%[0-9]+]] = "kernel.check_index"([[I]]) {axis = 0, size = 8}
// CHECK-NEXT:     [[E:%[0-9]+]] = "kernel.extract"([[X]], [[P]])
// CHECK-NEXT:     [[SQ:%[0-9]+]] = "arith.mulf"([[E]], [[E]])
// CHECK-NEXT:     [[S:%[0-9]+]] = "arith.addf"([[ACC]], [[SQ]])
// CHECK-NEXT:     "scf.yield"([[S]]) : (f64) -> ()
// CHECK-NEXT:   }) : (i64, i64, i64, f64) -> f64
// CHECK-NEXT:   "kernel.yield"([[R]])
// CHECK-NEXT: }) {domain = [], indexed = [1], {{.*}} iterator_types = []}
// CHECK-NOT:  scf.
"func.func"() ({
^bb0(%arg0: tensor<8xf64>, %arg1: tensor<i64>):
  %0 = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %1 = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %2 = "array.constant"() {value = dense<0.0> : tensor<f64>} : () -> tensor<f64>
  %3 = "scf.for"(%0, %arg1, %1, %2) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<f64>):
    %e = "array.gather"(%arg0, %i) {axis = 0} : (tensor<8xf64>, tensor<i64>) -> tensor<f64>
    %sq = "array.mul"(%e, %e) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %s = "array.add"(%acc, %sq) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    "scf.yield"(%s) : (tensor<f64>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f64>) -> tensor<f64>
  "func.return"(%3) : (tensor<f64>) -> ()
}) {function_type = (tensor<8xf64>, tensor<i64>) -> tensor<f64>, sym_name = "sum_of_squares"} : () -> ()

// -----
// An array carried and written in the loop is an indexed result that starts as a copy of the
// array given (copy_inputs), read back by kernel.extract_result (the loop sees its own writes)
// and written by kernel.insert; the loop carries nothing else.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg1, %arg0) ({
// CHECK:        "scf.for"({{%[0-9]+}}, {{%arg[0-9]+}}, {{%[0-9]+}}) ({
// CHECK-NEXT:   ^bb0([[I:%arg[0-9]+]]: i64):
// CHECK-NEXT:     [[P:%[0-9]+]] = "kernel.check_index"([[I]]) {axis = 0, size = 8}
// CHECK-NEXT:     [[E:%[0-9]+]] = "kernel.extract_result"([[P]]) {result = 0} : (index) -> f64
// CHECK:          [[V:%[0-9]+]] = "arith.mulf"([[E]], {{%[0-9]+}})
// CHECK:          [[Q:%[0-9]+]] = "kernel.check_index"({{%[0-9]+}}) {axis = 0, size = 8}
// CHECK-NEXT:     "kernel.insert"([[V]], [[Q]]) {mode = "set", result = 0}
// CHECK-NEXT:     "scf.yield"() : () -> ()
// CHECK-NEXT:   }) : (i64, i64, i64) -> ()
// CHECK-NEXT:   "kernel.yield"() : () -> ()
// CHECK-NEXT: }) {copy_inputs = [1], domain = [], indexed = [1, 2], {{.*}}} : (tensor<i64>, tensor<8xf64>) -> tensor<8xf64>
"func.func"() ({
^bb0(%arg0: tensor<8xf64>, %arg1: tensor<i64>):
  %one = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %half = "array.constant"() {value = dense<0.5> : tensor<f64>} : () -> tensor<f64>
  %r = "scf.for"(%one, %arg1, %one, %arg0) ({
  ^bb0(%i: tensor<i64>, %v: tensor<8xf64>):
    %e = "array.gather"(%v, %i) {axis = 0} : (tensor<8xf64>, tensor<i64>) -> tensor<f64>
    %h = "array.mul"(%e, %half) : (tensor<f64>, tensor<f64>) -> tensor<f64>
    %j = "array.add"(%i, %one) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %w = "array.scatter_nd"(%v, %h, %j) {axes = [0], mode = "set", position = 0} : (tensor<8xf64>, tensor<f64>, tensor<i64>) -> tensor<8xf64>
    "scf.yield"(%w) : (tensor<8xf64>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<8xf64>) -> tensor<8xf64>
  "func.return"(%r) : (tensor<8xf64>) -> ()
}) {function_type = (tensor<8xf64>, tensor<i64>) -> tensor<8xf64>, sym_name = "halve_into_next"} : () -> ()

// -----
// An scf.if choosing between 0-d values: one kernel whose body branches on a scalar i1 (the
// condition, computed before the op, is a kernel of its own and an input of this one).
// RUN: kernelize
// CHECK:      %[[C:[0-9]+]] = "kernel.generic"(%arg0, %arg1)
// CHECK:      "kernel.generic"(%[[C]], %arg0, %arg1) ({
// CHECK-NEXT: ^bb0([[P:%arg[0-9]+]]: i1, [[A:%arg[0-9]+]]: f32, [[B:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[R:%[0-9]+]] = "scf.if"([[P]]) ({
// CHECK-NEXT:     [[D:%[0-9]+]] = "arith.subf"([[A]], [[B]])
// CHECK-NEXT:     "scf.yield"([[D]])
// CHECK-NEXT:   }, {
// CHECK-NEXT:     "scf.yield"([[B]])
// CHECK-NEXT:   }) : (i1) -> f32
// CHECK-NEXT:   "kernel.yield"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
  %c = "array.gt"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = "scf.if"(%c) ({
    %d = "array.sub"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%d) : (tensor<f32>) -> ()
  }, {
    "scf.yield"(%arg1) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  "func.return"(%r) : (tensor<f32>) -> ()
}) {function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "branch"} : () -> ()

// -----
// A loop whose body is array work (a non-0-d add) stays: its body is kernelized, for the host.
// RUN: kernelize
// CHECK:      "scf.for"
// CHECK-NEXT: ^bb0({{%arg[0-9]+}}: tensor<i64>, [[V:%arg[0-9]+]]: tensor<4xf64>):
// CHECK-NEXT:   "kernel.generic"([[V]])
"func.func"() ({
^bb0(%arg0: tensor<4xf64>, %arg1: tensor<i64>):
  %zero = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%zero, %arg1, %one, %arg0) ({
  ^bb0(%i: tensor<i64>, %v: tensor<4xf64>):
    %w = "array.add"(%v, %v) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    "scf.yield"(%w) : (tensor<4xf64>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf64>) -> tensor<4xf64>
  "func.return"(%r) : (tensor<4xf64>) -> ()
}) {function_type = (tensor<4xf64>, tensor<i64>) -> tensor<4xf64>, sym_name = "array_work"} : () -> ()
