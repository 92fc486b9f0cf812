// The fusion rule of passes/fuse.py, case by case: what fuses, what is recomputed (a cheap
// producer: at most max-recompute non-constant scalar ops, 2 unless the pipeline says
// fuse{max-recompute=N}), and what is materialised.

// An elementwise chain with a broadcast operand and a splat constant is one kernel: the
// broadcast is an indexing map and the constant a body constant.
// RUN: kernelize,fuse,dce
// CHECK:      ^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>):
// CHECK-NEXT:   [[K:%[0-9]+]] = "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT:   ^bb0([[X:%arg[0-9]+]]: f32, [[Y:%arg[0-9]+]]: f32):
// CHECK-NEXT:     [[TWO:%[0-9]+]] = "arith.constant"() {value = 2.0 : f32} : () -> f32
// CHECK-NEXT:     [[M:%[0-9]+]] = "arith.mulf"([[X]], [[TWO]])
// CHECK-NEXT:     [[A:%[0-9]+]] = "arith.addf"([[M]], [[Y]])
// CHECK-NEXT:     [[T:%[0-9]+]] = "math.tanh"([[A]])
// CHECK-NEXT:     "kernel.yield"([[T]])
// CHECK-NEXT:   }) {domain = [4, 8], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:   "func.return"([[K]])
"func.func"() ({
^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>):
  %0 = "array.constant"() {value = dense<2.0> : tensor<4x8xf32>} : () -> tensor<4x8xf32>
  %1 = "array.mul"(%arg0, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "array.broadcast_in_dim"(%arg1) {broadcast_dimensions = [1]} : (tensor<8xf32>) -> tensor<4x8xf32>
  %3 = "array.add"(%1, %2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = "array.tanh"(%3) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  "func.return"(%4) : (tensor<4x8xf32>) -> ()
}) {function_type = (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>, sym_name = "elementwise_chain_is_one_kernel"} : () -> ()

// -----
// Two users of a producer of exactly max-recompute = 2 ops (the constant does not count): each user
// recomputes it, and nothing is materialised.
// RUN: kernelize,fuse,dce
// CHECK:      [[R1:%[0-9]+]] = "kernel.generic"(%arg{{[01]}}, %arg{{[01]}}) ({
// CHECK:        [[S1:%[0-9]+]] = "math.sin"
// CHECK-NEXT:   [[C1:%[0-9]+]] = "arith.constant"() {value = 1.0 : f32}
// CHECK-NEXT:   [[A1:%[0-9]+]] = "arith.addf"([[S1]], [[C1]])
// CHECK-NEXT:   "arith.mulf"([[A1]],
// CHECK:      [[R2:%[0-9]+]] = "kernel.generic"(%arg{{[01]}}, %arg{{[01]}}) ({
// CHECK:        [[S2:%[0-9]+]] = "math.sin"
// CHECK-NEXT:   [[C2:%[0-9]+]] = "arith.constant"() {value = 1.0 : f32}
// CHECK-NEXT:   [[A2:%[0-9]+]] = "arith.addf"([[S2]], [[C2]])
// CHECK-NEXT:   "arith.subf"([[A2]],
// CHECK-NOT:  "kernel.generic"
// CHECK:      "func.return"([[R1]], [[R2]])
"func.func"() ({
^bb0(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>):
  %0 = "array.sin"(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "array.constant"() {value = dense<1.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %2 = "array.add"(%0, %1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %3 = "array.mul"(%2, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %4 = "array.sub"(%2, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "func.return"(%3, %4) : (tensor<16xf32>, tensor<16xf32>) -> ()
}) {function_type = (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>), sym_name = "cheap_producer_with_two_users_is_recomputed"} : () -> ()

// -----
// One op over the boundary (max-recompute + 1): the producer is computed once, into a buffer that
// both users read.
// RUN: kernelize,fuse,dce
// CHECK:      [[P:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.sin"
// CHECK:        "arith.addf"
// CHECK-NEXT:   "math.exp"
// CHECK:      [[R1:%[0-9]+]] = "kernel.generic"([[P]], %arg1) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "arith.mulf"
// CHECK-NEXT:   "kernel.yield"
// CHECK:      [[R2:%[0-9]+]] = "kernel.generic"([[P]], %arg1) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "arith.subf"
// CHECK-NEXT:   "kernel.yield"
// CHECK:      "func.return"([[R1]], [[R2]])
"func.func"() ({
^bb0(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>):
  %0 = "array.sin"(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "array.constant"() {value = dense<1.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %2 = "array.add"(%0, %1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %3 = "array.exp"(%2) : (tensor<16xf32>) -> tensor<16xf32>
  %4 = "array.mul"(%3, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %5 = "array.sub"(%3, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "func.return"(%4, %5) : (tensor<16xf32>, tensor<16xf32>) -> ()
}) {function_type = (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>), sym_name = "expensive_producer_with_two_users_is_materialised"} : () -> ()

// -----
// The same 3-op producer under fuse{max-recompute=3}: the boundary moved, so each user
// recomputes it and nothing is materialised.
// RUN: kernelize,fuse{max-recompute=3},dce
// CHECK:      [[R1:%[0-9]+]] = "kernel.generic"(%arg{{[01]}}, %arg{{[01]}}) ({
// CHECK:        "math.sin"
// CHECK:        "arith.addf"
// CHECK-NEXT:   [[E1:%[0-9]+]] = "math.exp"
// CHECK-NEXT:   "arith.mulf"([[E1]],
// CHECK:      [[R2:%[0-9]+]] = "kernel.generic"(%arg{{[01]}}, %arg{{[01]}}) ({
// CHECK:        "math.sin"
// CHECK:        "arith.addf"
// CHECK-NEXT:   [[E2:%[0-9]+]] = "math.exp"
// CHECK-NEXT:   "arith.subf"([[E2]],
// CHECK-NOT:  "kernel.generic"
// CHECK:      "func.return"([[R1]], [[R2]])
"func.func"() ({
^bb0(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>):
  %0 = "array.sin"(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "array.constant"() {value = dense<1.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %2 = "array.add"(%0, %1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %3 = "array.exp"(%2) : (tensor<16xf32>) -> tensor<16xf32>
  %4 = "array.mul"(%3, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %5 = "array.sub"(%3, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "func.return"(%4, %5) : (tensor<16xf32>, tensor<16xf32>) -> ()
}) {function_type = (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>), sym_name = "max_recompute_3_recomputes_a_3_op_producer"} : () -> ()

// -----
// And under fuse{max-recompute=1} a 2-op producer with two users is materialised.
// RUN: kernelize,fuse{max-recompute=1},dce
// CHECK:      [[P:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.sin"
// CHECK:        "arith.addf"
// CHECK-NEXT:   "kernel.yield"
// CHECK:      [[R1:%[0-9]+]] = "kernel.generic"([[P]], %arg1) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "arith.mulf"
// CHECK:      [[R2:%[0-9]+]] = "kernel.generic"([[P]], %arg1) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "arith.subf"
// CHECK:      "func.return"([[R1]], [[R2]])
"func.func"() ({
^bb0(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>):
  %0 = "array.sin"(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "array.constant"() {value = dense<1.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %2 = "array.add"(%0, %1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %3 = "array.mul"(%2, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %4 = "array.sub"(%2, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "func.return"(%3, %4) : (tensor<16xf32>, tensor<16xf32>) -> ()
}) {function_type = (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>), sym_name = "max_recompute_1_materialises_a_2_op_producer"} : () -> ()

// -----
// A sole user that reads each element once takes in a producer of any cost.
// RUN: kernelize,fuse
// CHECK:      "kernel.generic"(%arg1, %arg0) ({
// CHECK:        "math.sin"
// CHECK-NEXT:   "math.cos"
// CHECK-NEXT:   "math.exp"
// CHECK-NEXT:   "math.tanh"
// CHECK-NEXT:   "arith.mulf"
// CHECK-NOT:  "kernel.generic"
"func.func"() ({
^bb0(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>):
  %0 = "array.sin"(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "array.cos"(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = "array.exp"(%1) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = "array.tanh"(%2) : (tensor<16xf32>) -> tensor<16xf32>
  %4 = "array.mul"(%3, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "func.return"(%4) : (tensor<16xf32>) -> ()
}) {function_type = (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>, sym_name = "expensive_producer_read_once_is_inlined"} : () -> ()

// -----
// A sole user that reads each element many times (here through a broadcast) recomputes a
// cheap producer per element it reads...
// RUN: kernelize,fuse
// CHECK:      "kernel.generic"(%arg1, %arg0) ({
// CHECK:        "math.sin"
// CHECK-NEXT:   "math.cos"
// CHECK-NEXT:   "arith.addf"
// CHECK:      }) {domain = [4, 8], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NOT:  "kernel.generic"
"func.func"() ({
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<4x8xf32>):
  %0 = "array.sin"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "array.cos"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "array.broadcast_in_dim"(%1) {broadcast_dimensions = [1]} : (tensor<8xf32>) -> tensor<4x8xf32>
  %3 = "array.add"(%2, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  "func.return"(%3) : (tensor<4x8xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, sym_name = "cheap_producer_read_many_times_is_recomputed"} : () -> ()

// -----
// ... and materialises an expensive one, which it then reads through the broadcast map.
// RUN: kernelize,fuse
// CHECK:      [[P:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.sin"
// CHECK-NEXT:   "math.cos"
// CHECK-NEXT:   "math.exp"
// CHECK:      }) {domain = [8],
// CHECK-NEXT: "kernel.generic"(%arg1, [[P]]) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "arith.addf"
// CHECK-NEXT:   "kernel.yield"
// CHECK-NEXT: }) {domain = [4, 8], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
"func.func"() ({
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<4x8xf32>):
  %0 = "array.sin"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "array.cos"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "array.exp"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = "array.broadcast_in_dim"(%2) {broadcast_dimensions = [1]} : (tensor<8xf32>) -> tensor<4x8xf32>
  %4 = "array.add"(%3, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  "func.return"(%4) : (tensor<4x8xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, sym_name = "expensive_producer_read_many_times_is_materialised"} : () -> ()

// -----
// A function result is a user too: an expensive value that is also returned is computed once
// and read back...
// RUN: kernelize,fuse
// CHECK:      [[P:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.cos"
// CHECK:      [[R:%[0-9]+]] = "kernel.generic"([[P]], %arg1) ({
// CHECK-NOT:    "math.
// CHECK:      "func.return"([[P]], [[R]])
"func.func"() ({
^bb0(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>):
  %0 = "array.sin"(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "array.exp"(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = "array.cos"(%1) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = "array.mul"(%2, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "func.return"(%2, %3) : (tensor<16xf32>, tensor<16xf32>) -> ()
}) {function_type = (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>), sym_name = "expensive_returned_value_is_read_back"} : () -> ()

// -----
// ... while a cheap one is stored for the return and recomputed in the user.
// RUN: kernelize,fuse
// CHECK:      [[P:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.sin"
// CHECK:      [[R:%[0-9]+]] = "kernel.generic"(%arg1, %arg0) ({
// CHECK:        "math.sin"
// CHECK-NEXT:   "arith.mulf"
// CHECK:      "func.return"([[P]], [[R]])
"func.func"() ({
^bb0(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>):
  %0 = "array.sin"(%arg0) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "array.mul"(%0, %arg1) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  "func.return"(%0, %1) : (tensor<16xf32>, tensor<16xf32>) -> ()
}) {function_type = (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>), sym_name = "cheap_returned_value_is_recomputed"} : () -> ()

// -----
// Elementwise producers fuse into a reduction (it reads each element once); the reduction's
// body combines the accumulator (the last body argument) with the element.
// RUN: kernelize,fuse
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: f32, [[Y:%arg[0-9]+]]: f32, [[ACC:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[S:%[0-9]+]] = "math.sin"([[X]])
// CHECK-NEXT:   [[E:%[0-9]+]] = "math.exp"([[S]])
// CHECK-NEXT:   [[M:%[0-9]+]] = "arith.mulf"([[E]], [[Y]])
// CHECK-NEXT:   [[SUM:%[0-9]+]] = "arith.addf"([[ACC]], [[M]])
// CHECK-NEXT:   "kernel.yield"([[SUM]])
// CHECK-NEXT: }) {domain = [4, 8], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], inits = [0.0 : f32], iterator_types = ["parallel", "reduction"]}
// CHECK-NOT:  "kernel.generic"
"func.func"() ({
^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>):
  %0 = "array.sin"(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "array.exp"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "array.broadcast_in_dim"(%arg1) {broadcast_dimensions = [1]} : (tensor<8xf32>) -> tensor<4x8xf32>
  %3 = "array.mul"(%1, %2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = "array.reduce"(%3) {axes = [1], kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  "func.return"(%4) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>, sym_name = "producers_fuse_into_a_reduction"} : () -> ()

// -----
// A reduction never fuses into its consumer: its result is materialised, and the broadcast
// that reads it becomes the consumer's map.
// RUN: kernelize,fuse
// CHECK:      [[MAX:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "arith.maximumf"
// CHECK:        inits = [0xFF800000 : f32], iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT: "kernel.generic"(%arg0, [[MAX]]) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "arith.subf"
// CHECK:      }) {domain = [4, 8], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
"func.func"() ({
^bb0(%arg0: tensor<4x8xf32>):
  %0 = "array.reduce"(%arg0) {axes = [1], kind = "max"} : (tensor<4x8xf32>) -> tensor<4xf32>
  %1 = "array.broadcast_in_dim"(%0) {broadcast_dimensions = [0]} : (tensor<4xf32>) -> tensor<4x8xf32>
  %2 = "array.sub"(%arg0, %1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  "func.return"(%2) : (tensor<4x8xf32>) -> ()
}) {function_type = (tensor<4x8xf32>) -> tensor<4x8xf32>, sym_name = "reduction_result_is_materialised"} : () -> ()

// -----
// A transpose and slices (one with a negative stride) compose into one indexing map:
// y[a, b] = x.T[5 - 2a, 1 + b] = x[1 + b, 5 - 2a].
// RUN: kernelize,fuse
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "arith.addf"
// CHECK-NEXT:   "kernel.yield"
// CHECK-NEXT: }) {domain = [3, 7], indexing_maps = [affine_map<(d0, d1) -> (d1 + 1, d0 * -2 + 5)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NOT:  "kernel.generic"
"func.func"() ({
^bb0(%arg0: tensor<8x6xf32>, %arg1: tensor<3x8xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<8x6xf32>) -> tensor<6x8xf32>
  %1 = "array.slice"(%0) {start = [5, 1], stride = [-2, 1]} : (tensor<6x8xf32>) -> tensor<3x7xf32>
  %2 = "array.slice"(%arg1) {start = [0, 0], stride = [1, 1]} : (tensor<3x8xf32>) -> tensor<3x7xf32>
  %3 = "array.add"(%1, %2) : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
  "func.return"(%3) : (tensor<3x7xf32>) -> ()
}) {function_type = (tensor<8x6xf32>, tensor<3x8xf32>) -> tensor<3x7xf32>, sym_name = "transpose_and_slices_are_index_maps"} : () -> ()

// -----
// A clamped read (pad, concatenate) evaluates its piece at every point and selects: a producer
// above max-recompute ops is materialised there, even with one user that reads each element once.
// RUN: kernelize,fuse{max-recompute=0},dce
// CHECK:      [[E:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.exp"
// CHECK:      "kernel.generic"([[E]]) ({
// CHECK-NOT:    "math.exp"
// CHECK:      }) {clamped = [0], domain = [8],
"func.func"() ({
^bb0(%arg0: tensor<5xf32>):
  %0 = "array.exp"(%arg0) : (tensor<5xf32>) -> tensor<5xf32>
  %1 = "array.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %2 = "array.pad"(%0, %1) {high = [2], low = [1]} : (tensor<5xf32>, tensor<f32>) -> tensor<8xf32>
  "func.return"(%2) : (tensor<8xf32>) -> ()
}) {function_type = (tensor<5xf32>) -> tensor<8xf32>, sym_name = "costly_producer_of_a_clamped_read_is_materialised"} : () -> ()

// -----
// A cheap producer of a clamped read is inlined, and its own reads become clamped: the pad is
// one kernel reading %arg0 at d0 - 1 (out of range at the edges, where the fill is selected).
// RUN: kernelize,fuse,dce
// CHECK:      "kernel.generic"(%arg0) ({
// CHECK:        "math.exp"
// CHECK:        "arith.select"
// CHECK:      }) {clamped = [0], domain = [8], indexing_maps = [affine_map<(d0) -> (d0 + -1)>, affine_map<(d0) -> (d0)>]
// CHECK-NOT:  "kernel.generic"
"func.func"() ({
^bb0(%arg0: tensor<5xf32>):
  %0 = "array.exp"(%arg0) : (tensor<5xf32>) -> tensor<5xf32>
  %1 = "array.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %2 = "array.pad"(%0, %1) {high = [2], low = [1]} : (tensor<5xf32>, tensor<f32>) -> tensor<8xf32>
  "func.return"(%2) : (tensor<8xf32>) -> ()
}) {function_type = (tensor<5xf32>) -> tensor<8xf32>, sym_name = "cheap_producer_of_a_clamped_read_is_inlined"} : () -> ()

// -----
// np.roll(x, 3) is a concatenate of two slices of x: one kernel reading x through two shifted,
// clamped maps and selecting by position; no slice is copied.
// RUN: kernelize,fuse,dce
// CHECK:      ^bb0(%arg0: tensor<10xf32>):
// CHECK-NEXT:   [[R:%[0-9]+]] = "kernel.generic"(%arg0, %arg0) ({
// CHECK:          "arith.select"
// CHECK:        }) {clamped = [0, 1], domain = [10], indexing_maps = [affine_map<(d0) -> (d0 + 7)>, affine_map<(d0) -> (d0 + -3)>, affine_map<(d0) -> (d0)>]
// CHECK-NEXT:   "func.return"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<10xf32>):
  %0 = "array.slice"(%arg0) {start = [7], stride = [1]} : (tensor<10xf32>) -> tensor<3xf32>
  %1 = "array.slice"(%arg0) {start = [0], stride = [1]} : (tensor<10xf32>) -> tensor<7xf32>
  %2 = "array.concatenate"(%0, %1) {axis = 0} : (tensor<3xf32>, tensor<7xf32>) -> tensor<10xf32>
  "func.return"(%2) : (tensor<10xf32>) -> ()
}) {function_type = (tensor<10xf32>) -> tensor<10xf32>, sym_name = "roll_reads_in_place"} : () -> ()

// -----
// A slice update writes only part of its result: it is never inlined into its user, and the
// array it starts as a copy of stays a buffer.
// RUN: kernelize,fuse
// CHECK:      [[N:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "arith.negf"
// CHECK:      [[U:%[0-9]+]] = "kernel.generic"([[N]], %arg1) ({
// CHECK-NOT:    "arith.negf"
// CHECK:      }) {copy_inputs = [0],
// CHECK-NEXT: "kernel.generic"([[U]]) ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   "math.absf"
"func.func"() ({
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<2xf32>):
  %0 = "array.neg"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "array.update_slice"(%0, %arg1) {start = [1], stride = [2]} : (tensor<8xf32>, tensor<2xf32>) -> tensor<8xf32>
  %2 = "array.abs"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%2) : (tensor<8xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<2xf32>) -> tensor<8xf32>, sym_name = "slice_update_is_materialised"} : () -> ()

// -----
// Each reduction starts from its kind's identity: 1.0 for a product, the type's maximum for
// an integer min, true for "and". A reduction over no axes combines each element with the
// identity once (0.0 + -0.0 is 0.0, as NumPy's sum over no axes).
// RUN: kernelize,fuse
// CHECK:      ^bb0([[X:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[ZERO:%[0-9]+]] = "arith.constant"() {value = 0.0 : f32}
// CHECK-NEXT:   [[S:%[0-9]+]] = "arith.addf"([[ZERO]], [[X]])
// CHECK-NEXT:   "kernel.yield"([[S]])
// CHECK-NEXT: }) {domain = [4, 8], {{.*}}, iterator_types = ["parallel", "parallel"]}
// CHECK:        "arith.mulf"
// CHECK:        indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], inits = [1.0 : f32], iterator_types = ["reduction", "reduction"]}
// CHECK:        "arith.minsi"
// CHECK:        indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], inits = [2147483647 : i32], iterator_types = ["reduction", "parallel"]}
// CHECK:        "arith.andi"
// CHECK:        inits = [true : i1], iterator_types = ["reduction"]}
"func.func"() ({
^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<3x5xi32>, %arg2: tensor<3xi1>):
  %0 = "array.reduce"(%arg0) {axes = [], kind = "sum"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "array.reduce"(%arg0) {axes = [0, 1], kind = "prod"} : (tensor<4x8xf32>) -> tensor<f32>
  %2 = "array.reduce"(%arg1) {axes = [0], kind = "min"} : (tensor<3x5xi32>) -> tensor<5xi32>
  %3 = "array.reduce"(%arg2) {axes = [0], kind = "and"} : (tensor<3xi1>) -> tensor<i1>
  "func.return"(%0, %1, %2, %3) : (tensor<4x8xf32>, tensor<f32>, tensor<5xi32>, tensor<i1>) -> ()
}) {function_type = (tensor<4x8xf32>, tensor<3x5xi32>, tensor<3xi1>) -> (tensor<4x8xf32>, tensor<f32>, tensor<5xi32>, tensor<i1>), sym_name = "reduction_identities"} : () -> ()

// -----
// select becomes arith.select, and a chain through it fuses.
// RUN: kernelize,fuse
// CHECK:      "kernel.generic"(%arg1, %arg2, %arg0) ({
// CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: f64, [[B:%arg[0-9]+]]: f64, [[C:%arg[0-9]+]]: f64):
// CHECK-NEXT:   [[LT:%[0-9]+]] = "arith.cmpf"([[C]], [[A]]) {predicate = "olt"}
// CHECK-NEXT:   [[S:%[0-9]+]] = "arith.select"([[LT]], [[A]], [[B]]) : (i1, f64, f64) -> f64
// CHECK-NEXT:   "kernel.yield"([[S]])
// CHECK-NOT:  "kernel.generic"
"func.func"() ({
^bb0(%arg0: tensor<6xf64>, %arg1: tensor<6xf64>, %arg2: tensor<6xf64>):
  %0 = "array.lt"(%arg0, %arg1) : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xi1>
  %1 = "array.select"(%0, %arg1, %arg2) : (tensor<6xi1>, tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>
  "func.return"(%1) : (tensor<6xf64>) -> ()
}) {function_type = (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>, sym_name = "select_fuses"} : () -> ()

// -----
// A gather stays whole (passes/fuse.py): the index arithmetic that feeds its index array fuses
// into it, but the array it reads at computed positions stays a buffer (an indexed input has
// no map to compose), and the gather itself, whose body checks indices, is not inlined into
// its consumer even though that reads each element once.
// RUN: kernelize,fuse,dce
// CHECK:      [[X:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "arith.mulf"
// CHECK:      [[G:%[0-9]+]] = "kernel.generic"([[X]], %arg1) ({
// CHECK-NEXT: ^bb0([[T:%arg[0-9]+]]: tensor<5xf32>, [[I:%arg[0-9]+]]: i64):
// CHECK-NEXT:   [[ONE:%[0-9]+]] = "arith.constant"() {value = 1 : i64}
// CHECK-NEXT:   [[J:%[0-9]+]] = "arith.addi"([[I]], [[ONE]])
// CHECK-NEXT:   [[P:%[0-9]+]] = "kernel.check_index"([[J]]) {axis = 0, size = 5}
// CHECK-NEXT:   [[V:%[0-9]+]] = "kernel.extract"([[T]], [[P]])
// CHECK-NEXT:   "kernel.yield"([[V]])
// CHECK:      [[Y:%[0-9]+]] = "kernel.generic"([[G]]) ({
// CHECK-NEXT: ^bb0([[E:%arg[0-9]+]]: f32):
// CHECK-NEXT:   "arith.mulf"([[E]], [[E]])
// CHECK:      "func.return"([[Y]])
"func.func"() ({
^bb0(%arg0: tensor<5xf32>, %arg1: tensor<3xi64>):
  %0 = "array.constant"() {value = dense<2.0> : tensor<5xf32>} : () -> tensor<5xf32>
  %1 = "array.mul"(%arg0, %0) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %2 = "array.constant"() {value = dense<1> : tensor<3xi64>} : () -> tensor<3xi64>
  %3 = "array.add"(%arg1, %2) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %4 = "array.gather"(%1, %3) {axis = 0} : (tensor<5xf32>, tensor<3xi64>) -> tensor<3xf32>
  %5 = "array.mul"(%4, %4) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  "func.return"(%5) : (tensor<3xf32>) -> ()
}) {function_type = (tensor<5xf32>, tensor<3xi64>) -> tensor<3xf32>, sym_name = "gather_stays_whole"} : () -> ()

// -----
// A row norm: the sqrt of a reduction's result, its only reader, becomes the reduction's
// epilogue region (applied per output element after the row is summed); the mean's division
// by a broadcast operand reads that operand in the epilogue only, through the composed map.
// RUN: kernelize,fuse,dce
// CHECK:      [[N:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: f32, [[ACC:%arg[0-9]+]]: f32):
// CHECK:        "kernel.yield"
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0({{%arg[0-9]+}}: f32, [[S:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[R:%[0-9]+]] = "math.sqrt"([[S]])
// CHECK-NEXT:   "kernel.yield"([[R]])
// CHECK-NEXT: }) {domain = [4, 5]
// CHECK:      [[M:%[0-9]+]] = "kernel.generic"(%arg0, %arg1) ({
// CHECK:      }, {
// CHECK-NEXT: ^bb0({{%arg[0-9]+}}: f32, [[D:%arg[0-9]+]]: f32, [[T:%arg[0-9]+]]: f32):
// CHECK-NEXT:   "arith.divf"([[T]], [[D]])
// CHECK:      }) {domain = [4, 5], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>]
// CHECK:      "func.return"([[N]], [[M]])
"func.func"() ({
^bb0(%arg0: tensor<4x5xf32>, %arg1: tensor<4xf32>):
  %0 = "array.mul"(%arg0, %arg0) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = "array.reduce"(%0) {axes = [1], kind = "sum"} : (tensor<4x5xf32>) -> tensor<4xf32>
  %2 = "array.sqrt"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "array.reduce"(%arg0) {axes = [1], kind = "sum"} : (tensor<4x5xf32>) -> tensor<4xf32>
  %4 = "array.div"(%3, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%2, %4) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4x5xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "reduction_epilogue"} : () -> ()

// -----
// A costly producer whose only user reads it through two shifted operands (x[1:] and x[:-1],
// a backward induction's step) is stored once and read twice: rule (a) takes a producer read
// once, and two operands would clone its body twice (a chain of such steps doubles the body at
// every step).
// RUN: kernelize,fuse,dce
// CHECK:      [[P:%[0-9]+]] = "kernel.generic"(%arg0) ({
// CHECK:        "math.sin"
// CHECK:      }) {domain = [8]
// CHECK-NOT:  "math.sin"
// CHECK:      [[R:%[0-9]+]] = "kernel.generic"([[P]], [[P]]) ({
// CHECK-NOT:  "math.sin"
// CHECK:      "func.return"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "array.sin"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "array.constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %2 = "array.add"(%0, %1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = "array.mul"(%2, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = "array.slice"(%3) {start = [1], stride = [1]} : (tensor<8xf32>) -> tensor<7xf32>
  %5 = "array.slice"(%3) {start = [0], stride = [1]} : (tensor<8xf32>) -> tensor<7xf32>
  %6 = "array.add"(%4, %5) : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  "func.return"(%6) : (tensor<7xf32>) -> ()
}) {function_type = (tensor<8xf32>) -> tensor<7xf32>, sym_name = "costly_producer_read_through_two_shifted_operands_is_stored"} : () -> ()
