// passes/interchange.py: a parallel kernel's innermost loop becomes the dim that walks most of
// its arrays with unit stride; ties keep the order.

// a.T + b.T: both operands are walked with unit stride by d0, the result by d1: d0 becomes the
// innermost dim and the result is written through a permuted map.
// RUN: kernelize,fuse,interchange
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK:      }) {domain = [3, 4], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "array.transpose"(%arg1) {permutation = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %2 = "array.add"(%0, %1) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  "func.return"(%2) : (tensor<4x3xf32>) -> ()
}) {function_type = (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x3xf32>, sym_name = "transposed_operands_iterate_along_their_rows"} : () -> ()

// -----
// a.T + b: one operand and the result walk d1 with unit stride, one operand d0: a tie is kept.
// RUN: kernelize,fuse,interchange
// CHECK:      }) {domain = [4, 4], indexing_maps = [{{.*}}affine_map<(d0, d1) -> (d1, d0)>{{.*}}, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "array.add"(%0, %arg1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  "func.return"(%1) : (tensor<4x4xf32>) -> ()
}) {function_type = (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>, sym_name = "a_tie_keeps_the_order"} : () -> ()

// -----
// A kernel.index follows its dim: the concatenate of two transposed operands selects by its
// position along d1, which becomes d0 once the operands' rows are innermost.
// RUN: kernelize,fuse,interchange
// CHECK:      "kernel.index"() {dim = 0}
// CHECK:      }) {clamped = [0, 1], domain = [6, 2], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0 + -3, d1)>, affine_map<(d0, d1) -> (d1, d0)>]
"func.func"() ({
^bb0(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %1 = "array.transpose"(%arg1) {permutation = [1, 0]} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = "array.concatenate"(%0, %1) {axis = 1} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  "func.return"(%2) : (tensor<2x6xf32>) -> ()
}) {function_type = (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<2x6xf32>, sym_name = "index_follows_its_dim"} : () -> ()

// -----
// A reduction reads its operand in memory order: a.T.sum(axis=1) sums down a's columns.
// RUN: kernelize,fuse,interchange
// CHECK:      }) {domain = [3, 4], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], inits = [0.0 : f32], iterator_types = ["reduction", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<3x4xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "array.reduce"(%0) {axes = [1], kind = "sum"} : (tensor<4x3xf32>) -> tensor<4xf32>
  "func.return"(%1) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<3x4xf32>) -> tensor<4xf32>, sym_name = "reduction_keeps_its_order"} : () -> ()

// -----
// A full sum of a transposed, reversed view reads it in memory order of its dims, each axis in
// index order: backwards, as NumPy's reductions read a negative stride (never turned around).
// RUN: kernelize,fuse,interchange
// CHECK:      }) {domain = [3, 4], indexing_maps = [affine_map<(d0, d1) -> (d0 * -1 + 2, d1 * -1 + 3)>, affine_map<(d0, d1) -> ()>], inits = [0.0 : f32], iterator_types = ["reduction", "reduction"]}
"func.func"() ({
^bb0(%arg0: tensor<3x4xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "array.slice"(%0) {start = [3, 2], stride = [-1, -1]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = "array.reduce"(%1) {axes = [0, 1], kind = "sum"} : (tensor<4x3xf32>) -> tensor<f32>
  "func.return"(%2) : (tensor<f32>) -> ()
}) {function_type = (tensor<3x4xf32>) -> tensor<f32>, sym_name = "reversed_transposed_sum"} : () -> ()

// -----
// Operands that disagree on the order (a * a.T) keep the C order.
// RUN: kernelize,fuse,interchange
// CHECK:      }) {domain = [3, 3], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> ()>], inits = [0.0 : f32], iterator_types = ["reduction", "reduction"]}
"func.func"() ({
^bb0(%arg0: tensor<3x3xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = "array.mul"(%arg0, %0) : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %2 = "array.reduce"(%1) {axes = [0, 1], kind = "sum"} : (tensor<3x3xf32>) -> tensor<f32>
  "func.return"(%2) : (tensor<f32>) -> ()
}) {function_type = (tensor<3x3xf32>) -> tensor<f32>, sym_name = "disagreeing_operands_keep_c_order"} : () -> ()
