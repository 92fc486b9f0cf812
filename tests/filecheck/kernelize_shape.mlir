// The kernel forms of the data-movement ops (passes/kernelize/shape.py), one op at a time.

// A slice is an indexing map, d * stride + start, with an empty body.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: f32):
// CHECK-NEXT:   "kernel.yield"([[X]])
// CHECK-NEXT: }) {domain = [3, 8], indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + 1, d1 * -1 + 7)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} : (tensor<8x8xf32>) -> tensor<3x8xf32>
"func.func"() ({
^bb0(%arg0: tensor<8x8xf32>):
  %0 = "array.slice"(%arg0) {start = [1, 7], stride = [2, -1]} : (tensor<8x8xf32>) -> tensor<3x8xf32>
  "func.return"(%0) : (tensor<3x8xf32>) -> ()
}) {function_type = (tensor<8x8xf32>) -> tensor<3x8xf32>, sym_name = "slice_is_a_map"} : () -> ()

// -----
// A pad reads its input shifted by the low padding, clamped, and selects the fill value
// outside low <= d < low + size on each padded dim.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: i32, [[FILL:%arg[0-9]+]]: i32):
// CHECK-NEXT:   [[I:%[0-9]+]] = "kernel.index"() {dim = 0}
// CHECK-NEXT:   [[LO0:%[0-9]+]] = "arith.constant"() {value = 1 : index}
// CHECK-NEXT:   [[A0:%[0-9]+]] = "arith.cmpi"([[I]], [[LO0]]) {predicate = "sge"}
// CHECK-NEXT:   [[HI0:%[0-9]+]] = "arith.constant"() {value = 3 : index}
// CHECK-NEXT:   [[B0:%[0-9]+]] = "arith.cmpi"([[I]], [[HI0]]) {predicate = "slt"}
// CHECK-NEXT:   [[IN0:%[0-9]+]] = "arith.andi"([[A0]], [[B0]])
// CHECK-NEXT:   [[J:%[0-9]+]] = "kernel.index"() {dim = 1}
// CHECK-NEXT:   [[LO1:%[0-9]+]] = "arith.constant"() {value = 1 : index}
// CHECK-NEXT:   [[A1:%[0-9]+]] = "arith.cmpi"([[J]], [[LO1]]) {predicate = "sge"}
// CHECK-NEXT:   [[HI1:%[0-9]+]] = "arith.constant"() {value = 4 : index}
// CHECK-NEXT:   [[B1:%[0-9]+]] = "arith.cmpi"([[J]], [[HI1]]) {predicate = "slt"}
// CHECK-NEXT:   [[IN1:%[0-9]+]] = "arith.andi"([[A1]], [[B1]])
// CHECK-NEXT:   [[IN:%[0-9]+]] = "arith.andi"([[IN0]], [[IN1]])
// CHECK-NEXT:   [[V:%[0-9]+]] = "arith.select"([[IN]], [[X]], [[FILL]])
// CHECK-NEXT:   "kernel.yield"([[V]])
// CHECK-NEXT: }) {clamped = [0], domain = [3, 6], indexing_maps = [affine_map<(d0, d1) -> (d0 + -1, d1 + -1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
"func.func"() ({
^bb0(%arg0: tensor<2x3xi32>, %arg1: tensor<i32>):
  %0 = "array.pad"(%arg0, %arg1) {high = [0, 2], low = [1, 1]} : (tensor<2x3xi32>, tensor<i32>) -> tensor<3x6xi32>
  "func.return"(%0) : (tensor<3x6xi32>) -> ()
}) {function_type = (tensor<2x3xi32>, tensor<i32>) -> tensor<3x6xi32>, sym_name = "pad_selects_by_position"} : () -> ()

// -----
// A concatenate reads each non-empty piece shifted by its start, clamped, and selects by the
// position along the axis: the last piece by default, then each earlier one where it lies.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg2, %arg3) ({
// CHECK-NEXT: ^bb0([[P0:%arg[0-9]+]]: f64, [[P2:%arg[0-9]+]]: f64, [[P3:%arg[0-9]+]]: f64):
// CHECK-NEXT:   [[I:%[0-9]+]] = "kernel.index"() {dim = 1}
// CHECK-NEXT:   "arith.constant"() {value = 3 : index}
// CHECK-NEXT:   "arith.cmpi"
// CHECK-NEXT:   "arith.constant"() {value = 5 : index}
// CHECK-NEXT:   "arith.cmpi"
// CHECK-NEXT:   [[IN2:%[0-9]+]] = "arith.andi"
// CHECK-NEXT:   [[V:%[0-9]+]] = "arith.select"([[IN2]], [[P2]], [[P3]])
// CHECK-NEXT:   "kernel.index"() {dim = 1}
// CHECK-NEXT:   "arith.constant"() {value = 0 : index}
// CHECK-NEXT:   "arith.cmpi"
// CHECK-NEXT:   "arith.constant"() {value = 3 : index}
// CHECK-NEXT:   "arith.cmpi"
// CHECK-NEXT:   [[IN0:%[0-9]+]] = "arith.andi"
// CHECK-NEXT:   [[W:%[0-9]+]] = "arith.select"([[IN0]], [[P0]], [[V]])
// CHECK-NEXT:   "kernel.yield"([[W]])
// CHECK-NEXT: }) {clamped = [0, 1, 2], domain = [2, 6], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 + -3)>, affine_map<(d0, d1) -> (d0, d1 + -5)>, affine_map<(d0, d1) -> (d0, d1)>]
"func.func"() ({
^bb0(%arg0: tensor<2x3xf64>, %arg1: tensor<2x0xf64>, %arg2: tensor<2x2xf64>, %arg3: tensor<2x1xf64>):
  %0 = "array.concatenate"(%arg0, %arg1, %arg2, %arg3) {axis = 1} : (tensor<2x3xf64>, tensor<2x0xf64>, tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x6xf64>
  "func.return"(%0) : (tensor<2x6xf64>) -> ()
}) {function_type = (tensor<2x3xf64>, tensor<2x0xf64>, tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x6xf64>, sym_name = "concatenate_selects_by_position"} : () -> ()

// -----
// A slice update iterates over the update only; its result starts as a copy of the array
// (copy_inputs) and is written through the slice's map.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0(%arg2: f32, [[U:%arg[0-9]+]]: f32):
// CHECK-NEXT:   "kernel.yield"([[U]])
// CHECK-NEXT: }) {copy_inputs = [0], domain = [2, 3], indexing_maps = [affine_map<(d0, d1) -> (d0 * -2 + 3, d1 * 3 + 1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0 * -2 + 3, d1 * 3 + 1)>], iterator_types = ["parallel", "parallel"]} : (tensor<4x8xf32>, tensor<2x3xf32>) -> tensor<4x8xf32>
"func.func"() ({
^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<2x3xf32>):
  %0 = "array.update_slice"(%arg0, %arg1) {start = [3, 1], stride = [-2, 3]} : (tensor<4x8xf32>, tensor<2x3xf32>) -> tensor<4x8xf32>
  "func.return"(%0) : (tensor<4x8xf32>) -> ()
}) {function_type = (tensor<4x8xf32>, tensor<2x3xf32>) -> tensor<4x8xf32>, sym_name = "update_slice_copies_then_writes_the_slice"} : () -> ()
