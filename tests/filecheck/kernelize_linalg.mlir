// The kernel form of dot_general (passes/kernelize/linalg.py): iteration dims in the loop
// order [batch, lhs free, contracting, rhs free], body acc + lhs * rhs from 0.

// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: f32, [[B:%arg[0-9]+]]: f32, [[ACC:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[P:%[0-9]+]] = "arith.mulf"([[A]], [[B]])
// CHECK-NEXT:   [[S:%[0-9]+]] = "arith.addf"([[ACC]], [[P]])
// CHECK-NEXT:   "kernel.yield"([[S]])
// CHECK-NEXT: }) {domain = [4, 3, 5], indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], inits = [0.0 : f32], iterator_types = ["parallel", "reduction", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<4x3xf32>, %arg1: tensor<3x5xf32>):
  %0 = "array.dot_general"(%arg0, %arg1) {lhs_batch = [], lhs_contracting = [1], rhs_batch = [], rhs_contracting = [0]} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  "func.return"(%0) : (tensor<4x5xf32>) -> ()
}) {function_type = (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>, sym_name = "matmul"} : () -> ()

// -----
// A batched bool product with operands laid out unlike the loop order: or over and, from false.
// RUN: kernelize
// CHECK:      ^bb0([[A:%arg[0-9]+]]: i1, [[B:%arg[0-9]+]]: i1, [[ACC:%arg[0-9]+]]: i1):
// CHECK-NEXT:   [[P:%[0-9]+]] = "arith.andi"([[A]], [[B]])
// CHECK-NEXT:   [[S:%[0-9]+]] = "arith.ori"([[ACC]], [[P]])
// CHECK-NEXT:   "kernel.yield"([[S]])
// CHECK-NEXT: }) {domain = [2, 4, 3, 5], indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], inits = [false : i1], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<2x3x4xi1>, %arg1: tensor<2x5x3xi1>):
  %0 = "array.dot_general"(%arg0, %arg1) {lhs_batch = [0], lhs_contracting = [1], rhs_batch = [0], rhs_contracting = [2]} : (tensor<2x3x4xi1>, tensor<2x5x3xi1>) -> tensor<2x4x5xi1>
  "func.return"(%0) : (tensor<2x4x5xi1>) -> ()
}) {function_type = (tensor<2x3x4xi1>, tensor<2x5x3xi1>) -> tensor<2x4x5xi1>, sym_name = "batched_bool_product"} : () -> ()

// -----
// Without contracting dims (an outer product) there is no accumulator and no inits.
// RUN: kernelize
// CHECK:      ^bb0([[A:%arg[0-9]+]]: i32, [[B:%arg[0-9]+]]: i32):
// CHECK-NEXT:   [[P:%[0-9]+]] = "arith.muli"([[A]], [[B]])
// CHECK-NEXT:   "kernel.yield"([[P]])
// CHECK-NEXT: }) {domain = [4, 5], indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<4xi32>, %arg1: tensor<5xi32>):
  %0 = "array.dot_general"(%arg0, %arg1) {lhs_batch = [], lhs_contracting = [], rhs_batch = [], rhs_contracting = []} : (tensor<4xi32>, tensor<5xi32>) -> tensor<4x5xi32>
  "func.return"(%0) : (tensor<4x5xi32>) -> ()
}) {function_type = (tensor<4xi32>, tensor<5xi32>) -> tensor<4x5xi32>, sym_name = "outer_product"} : () -> ()

// -----
// Into a float contraction fuse only producers that compute nothing (here a transpose of the
// rhs, which becomes its map): even a cheap scale of the lhs is materialised, so the
// contraction stays `acc + a * b` over its operands, which the CPU runs as a BLAS call.
// RUN: kernelize,fuse,dce
// CHECK:      [[S:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "arith.mulf"
// CHECK:      "kernel.generic"([[S]], %arg1) ({
// CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: f32, [[B:%arg[0-9]+]]: f32, [[ACC:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[P:%[0-9]+]] = "arith.mulf"([[A]], [[B]])
// CHECK-NEXT:   [[R:%[0-9]+]] = "arith.addf"([[ACC]], [[P]])
// CHECK-NEXT:   "kernel.yield"([[R]])
// CHECK-NEXT: }) {domain = [4, 3, 5], indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
"func.func"() ({
^bb0(%arg0: tensor<4x3xf32>, %arg1: tensor<5x3xf32>):
  %0 = "array.constant"() {value = dense<2.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %1 = "array.mul"(%arg0, %0) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = "array.transpose"(%arg1) {permutation = [1, 0]} : (tensor<5x3xf32>) -> tensor<3x5xf32>
  %3 = "array.dot_general"(%1, %2) {lhs_batch = [], lhs_contracting = [1], rhs_batch = [], rhs_contracting = [0]} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  "func.return"(%3) : (tensor<4x5xf32>) -> ()
}) {function_type = (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>, sym_name = "producers_of_a_float_contraction"} : () -> ()

// -----
// Into an integer contraction (always a loop nest) a cheap elementwise producer fuses, though
// it reads each lhs element once per rhs column; an expensive one is materialised.
// RUN: kernelize,fuse,dce
// CHECK:      [[E:%[0-9]+]] = "kernel.generic"(%arg1) ({
// CHECK:        "arith.muli"
// CHECK-NEXT:   "arith.addi"
// CHECK-NEXT:   "arith.muli"
// CHECK:      "kernel.generic"([[E]], %arg0) ({
// CHECK-NEXT: ^bb0([[B:%arg[0-9]+]]: i32, [[A:%arg[0-9]+]]: i32, [[ACC:%arg[0-9]+]]: i32):
// CHECK-NEXT:   [[C:%[0-9]+]] = "arith.constant"() {value = 2 : i32}
// CHECK-NEXT:   [[A2:%[0-9]+]] = "arith.muli"([[A]], [[C]])
// CHECK-NEXT:   [[P:%[0-9]+]] = "arith.muli"([[A2]], [[B]])
// CHECK-NEXT:   "arith.addi"([[ACC]], [[P]])
// CHECK:        indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
"func.func"() ({
^bb0(%arg0: tensor<4x3xi32>, %arg1: tensor<3x5xi32>):
  %0 = "array.constant"() {value = dense<2> : tensor<4x3xi32>} : () -> tensor<4x3xi32>
  %1 = "array.mul"(%arg0, %0) : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi32>
  %2 = "array.mul"(%arg1, %arg1) : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi32>
  %3 = "array.add"(%2, %arg1) : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi32>
  %4 = "array.mul"(%3, %3) : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi32>
  %5 = "array.dot_general"(%1, %4) {lhs_batch = [], lhs_contracting = [1], rhs_batch = [], rhs_contracting = [0]} : (tensor<4x3xi32>, tensor<3x5xi32>) -> tensor<4x5xi32>
  "func.return"(%5) : (tensor<4x5xi32>) -> ()
}) {function_type = (tensor<4x3xi32>, tensor<3x5xi32>) -> tensor<4x5xi32>, sym_name = "producers_of_an_integer_contraction"} : () -> ()

// -----
// A cheap producer shared by a matrix product, the transpose feeding another and an
// elementwise kernel (an MLP's h = tanh(x): h @ w, h.T @ g and 1 - h * h) is computed once for
// both products: not inlined into the transpose, which the second product absorbs as its map.
// Stored for the products, it is read by the elementwise kernel too, not recomputed there
// (fuse.py's _stored_for_a_contraction): tanh once in the program.
// RUN: kernelize,fuse,dce
// CHECK:      [[H:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.tanh"
// CHECK:      "kernel.generic"([[H]], %arg1) ({
// CHECK-NOT:    "math.tanh"
// CHECK:        indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK:      "kernel.generic"(%arg2, [[H]]) ({
// CHECK-NOT:    "math.tanh"
// CHECK:        indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK:      "kernel.generic"([[H]]) ({
// CHECK-NOT:  "math.tanh"
"func.func"() ({
^bb0(%arg0: tensor<5x3xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<5x2xf32>):
  %0 = "array.tanh"(%arg0) : (tensor<5x3xf32>) -> tensor<5x3xf32>
  %1 = "array.dot_general"(%0, %arg1) {lhs_batch = [], lhs_contracting = [1], rhs_batch = [], rhs_contracting = [0]} : (tensor<5x3xf32>, tensor<3x2xf32>) -> tensor<5x2xf32>
  %2 = "array.transpose"(%0) {permutation = [1, 0]} : (tensor<5x3xf32>) -> tensor<3x5xf32>
  %3 = "array.dot_general"(%2, %arg2) {lhs_batch = [], lhs_contracting = [1], rhs_batch = [], rhs_contracting = [0]} : (tensor<3x5xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  %4 = "array.mul"(%0, %0) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  "func.return"(%1, %3, %4) : (tensor<5x2xf32>, tensor<3x2xf32>, tensor<5x3xf32>) -> ()
}) {function_type = (tensor<5x3xf32>, tensor<3x2xf32>, tensor<5x2xf32>) -> (tensor<5x2xf32>, tensor<3x2xf32>, tensor<5x3xf32>), sym_name = "shared_producer_of_two_products"} : () -> ()
