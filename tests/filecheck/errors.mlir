// Invalid input is refused with a message that names the problem (CHECK-ERROR cases).

// A kernel whose map reads past the end of its operand.
// RUN: kernelize,fuse
// CHECK-ERROR: VerificationError: 'kernel.generic' op map affine_map<(d0) -> (d0 + 1)> reads outside dim 0 of tensor<4xf32>
"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "kernel.generic"(%arg0) ({
  ^bb0(%arg1: f32):
    "kernel.yield"(%arg1) : (f32) -> ()
  }) {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "map_out_of_bounds"} : () -> ()

// -----
// A reduction kernel without its inits.
// RUN: kernelize,fuse
// CHECK-ERROR: a reduction or scan needs 'inits'
"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "kernel.generic"(%arg0) ({
  ^bb0(%arg1: f32, %arg2: f32):
    %1 = "arith.addf"(%arg2, %arg1) : (f32, f32) -> f32
    "kernel.yield"(%1) : (f32) -> ()
  }) {domain = [4], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} : (tensor<4xf32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<f32>, sym_name = "reduction_without_inits"} : () -> ()

// -----
// A scan of a kind that has none.
// RUN: kernelize,fuse
// CHECK-ERROR: 'array.scan' op needs 'kind' in ['bitand', 'bitor', 'bitxor', 'max', 'min', 'prod', 'sum']
"func.func"() ({
^bb0(%arg0: tensor<6xi16>):
  %0 = "array.scan"(%arg0) {axis = 0, kind = "and"} : (tensor<6xi16>) -> tensor<6xi16>
  "func.return"(%0) : (tensor<6xi16>) -> ()
}) {function_type = (tensor<6xi16>) -> tensor<6xi16>, sym_name = "scan_of_and"} : () -> ()

// -----
// Parse errors give the line in this file.
// RUN: kernelize,fuse
// CHECK-ERROR: ParseError: line [[@LINE+4]], column {{[0-9]+}}: use of undefined value %7
"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%7) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "undefined_value"} : () -> ()

// -----
// A pipeline naming a pass that does not exist.
// RUN: kernelize,fuse,frobnicate
// CHECK-ERROR: PipelineError: unknown pass 'frobnicate' in pipeline 'kernelize,fuse,frobnicate'; known passes: {{.*}}fuse
"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "unknown_pass"} : () -> ()

// -----
// fuse only fuses kernels: an array op that kernelize converts must not reach it.
// RUN: fuse
// CHECK-ERROR: PipelineError: pass 'fuse' fuses kernels, but 'array.neg' is not one yet: run 'kernelize' before 'fuse'
"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "fuse_without_kernelize"} : () -> ()

// -----
// array.partition_at's ranks must have a row per lane (the operand's shape without the axis).
// RUN: kernelize
// CHECK-ERROR: 'array.partition_at' op needs int64 ranks of shape (3,) followed by the ranks' count
"func.func"() ({
^bb0(%arg0: tensor<3x50xf64>, %arg1: tensor<50x4xi64>):
  %0 = "array.partition_at"(%arg0, %arg1) {axis = 1} : (tensor<3x50xf64>, tensor<50x4xi64>) -> tensor<3x50xf64>
  "func.return"(%0) : (tensor<3x50xf64>) -> ()
}) {function_type = (tensor<3x50xf64>, tensor<50x4xi64>) -> tensor<3x50xf64>, sym_name = "partition_at_ranks_per_lane"} : () -> ()
