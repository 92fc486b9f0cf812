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
// A reduction keeps its order: its schedule is the code generator's.
// RUN: kernelize,fuse,interchange
// CHECK:      iterator_types = ["parallel", "reduction"]
"func.func"() ({
^bb0(%arg0: tensor<3x4xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "array.reduce"(%0) {axes = [1], kind = "sum"} : (tensor<4x3xf32>) -> tensor<4xf32>
  "func.return"(%1) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<3x4xf32>) -> tensor<4xf32>, sym_name = "reduction_keeps_its_order"} : () -> ()
