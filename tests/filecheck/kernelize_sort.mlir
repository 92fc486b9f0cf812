// The kernel form of array.sort, argsort and searchsorted (passes/kernelize/sort.py).

// A short lane (n <= 16) is insertion-sorted in place: one kernel over the other dims, its
// result an indexed copy of the input, a while loop shifting larger elements (NaN last) up;
// with 1024 elements or more (NETWORK_FROM) marked for codegen/cpu/sort_lanes.py
// (sort_lanes_axis), which sorts lanes in groups instead; the next case, 3 x 5, is not marked.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0) ({
// CHECK:        [[ROW:%[0-9]+]] = "kernel.index"() {dim = 0}
// CHECK:        "scf.for"
// CHECK:          [[V:%[0-9]+]] = "kernel.extract_result"([[ROW]], %arg3) {result = 0}
// CHECK:          "scf.while"
// CHECK:            "arith.cmpf"({{.*}}) {predicate = "olt"}
// CHECK:            "arith.cmpf"({{.*}}) {predicate = "uno"}
// CHECK:            "scf.condition"
// CHECK:          "kernel.insert"([[V]], [[ROW]], {{%[0-9]+}}) {mode = "set", result = 0}
// CHECK:      }) {copy_inputs = [0], domain = [128], indexed = [0, 1], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["parallel"], sort_lanes_axis = 1}
"func.func"() ({
^bb0(%arg0: tensor<128x16xf32>):
  %0 = "array.sort"(%arg0) {axis = 1} : (tensor<128x16xf32>) -> tensor<128x16xf32>
  "func.return"(%0) : (tensor<128x16xf32>) -> ()
}) {function_type = (tensor<128x16xf32>) -> tensor<128x16xf32>, sym_name = "sort_rows"} : () -> ()

// -----
// RUN: kernelize
// CHECK:      }) {copy_inputs = [0], domain = [3], indexed = [0, 1], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["parallel"]} : (tensor<3x5xf32>)
"func.func"() ({
^bb0(%arg0: tensor<3x5xf32>):
  %0 = "array.sort"(%arg0) {axis = 1} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  "func.return"(%0) : (tensor<3x5xf32>) -> ()
}) {function_type = (tensor<3x5xf32>) -> tensor<3x5xf32>, sym_name = "sort_small_rows"} : () -> ()

// -----
// A long lane is radix-sorted: float keys from the bits, byte counters as a third indexed
// result (starting from a zero buffer), a scatter per byte that is a copy when the byte is the
// same for the whole lane.
// RUN: kernelize
// CHECK:      "arith.bitcast"({{.*}}) : (f64) -> i64
// CHECK:      "kernel.insert"({{.*}}) {mode = "add", result = 2}
// CHECK:      "scf.if"
// CHECK:      }) {copy_inputs = [0, 0, 1], domain = [], indexed = [0, 1, 2, 3, 4]
"func.func"() ({
^bb0(%arg0: tensor<5000xf64>):
  %0 = "array.sort"(%arg0) {axis = 0} : (tensor<5000xf64>) -> tensor<5000xf64>
  "func.return"(%0) : (tensor<5000xf64>) -> ()
}) {function_type = (tensor<5000xf64>) -> tensor<5000xf64>, sym_name = "sort_long"} : () -> ()

// -----
// A long lane of ints first finds its smallest key and span (one read, unsigned min and max of
// the sign-flipped keys). A span below the 6144 counters counting-sorts (count key - smallest,
// then write each value as often as counted); else the radix sort counts digits of key -
// smallest and runs the second digit's pass only when the span reaches it; a last copy back
// runs when an odd number of passes ran.
// RUN: kernelize
// CHECK:      "arith.xori"({{.*}}) : (i32, i32) -> i32
// CHECK:      "arith.minui"
// CHECK:      "arith.maxui"
// CHECK:      [[SPAN:%[0-9]+]] = "arith.subi"
// CHECK:      "arith.constant"() {value = 6144 : i32}
// CHECK-NEXT: "arith.cmpi"([[SPAN]], {{%[0-9]+}}) {predicate = "ult"}
// CHECK:      "scf.if"
// CHECK:      "kernel.insert"({{.*}}) {mode = "add", result = 2}
// CHECK:      "scf.for"
// CHECK:        "kernel.insert"({{.*}}) {mode = "set", result = 0}
// CHECK:      "arith.subi"({{.*}}) : (i32, i32) -> i32
// CHECK:      "kernel.insert"({{.*}}) {mode = "add", result = 2}
// CHECK:      "arith.shrui"([[SPAN]], {{%[0-9]+}})
// CHECK:      "arith.cmpi"({{.*}}) {predicate = "ne"}
// CHECK:      "scf.if"
// CHECK:      }) {copy_inputs = [0, 0, 1], domain = [], indexed = [0, 1, 2, 3, 4]
"func.func"() ({
^bb0(%arg0: tensor<5000xi32>):
  %0 = "array.sort"(%arg0) {axis = 0} : (tensor<5000xi32>) -> tensor<5000xi32>
  "func.return"(%0) : (tensor<5000xi32>) -> ()
}) {function_type = (tensor<5000xi32>) -> tensor<5000xi32>, sym_name = "sort_long_ints"} : () -> ()

// -----
// searchsorted: along the values' last axis, a loop over the lane's blocks of 8 (session 50:
// each block searched from the last answer, as NumPy interp's binary search with a guess, or
// its 8 values bisected side by side), then a loop over the values past the last whole block,
// each a binary search over the indexed sorted operand; left side goes right while a[mid] < v.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0(%arg2: tensor<8xi32>, %arg3: tensor<4xi32>):
// CHECK:        "scf.for"
// CHECK:        "scf.for"
// CHECK:          [[V:%[0-9]+]] = "kernel.extract"(%arg3, {{%arg[0-9]+}})
// CHECK:          "scf.while"
// CHECK:            "arith.shrui"
// CHECK:            [[X:%[0-9]+]] = "kernel.extract"(%arg2, {{%[0-9]+}})
// CHECK:            "arith.cmpi"([[X]], [[V]]) {predicate = "slt"}
// CHECK:        "kernel.yield"
// CHECK:      }) {domain = [], fills = [0], indexed = [0, 1, 2]
"func.func"() ({
^bb0(%arg0: tensor<8xi32>, %arg1: tensor<4xi32>):
  %0 = "array.searchsorted"(%arg0, %arg1) {side = "left"} : (tensor<8xi32>, tensor<4xi32>) -> tensor<4xi64>
  "func.return"(%0) : (tensor<4xi64>) -> ()
}) {function_type = (tensor<8xi32>, tensor<4xi32>) -> tensor<4xi64>, sym_name = "search"} : () -> ()

// -----
// array.partition_at: the full sort's kernel (its contract's reference), with the ranks as a
// last indexed operand that only codegen/cpu/sort_select.py reads, marked with how many ranks
// a lane has (select_ranks) in place of constant ranks (select_kth).
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1) ({
// CHECK:      }) {copy_inputs = [0, 0], domain = [3], indexed = [0, 1, 2, 3], {{.*}} select_axis = 1, select_ranks = 4}
"func.func"() ({
^bb0(%arg0: tensor<3x50xf64>, %arg1: tensor<3x4xi64>):
  %0 = "array.partition_at"(%arg0, %arg1) {axis = 1} : (tensor<3x50xf64>, tensor<3x4xi64>) -> tensor<3x50xf64>
  "func.return"(%0) : (tensor<3x50xf64>) -> ()
}) {function_type = (tensor<3x50xf64>, tensor<3x4xi64>) -> tensor<3x50xf64>, sym_name = "partition_at_rows"} : () -> ()

// -----
// argsort: the values are the only operand; the positions (results 0 and 1) start as nothing
// (`fills`: every path writes each position before reading it; no buffer of zeros to fill and
// copy), the keys as copies of the values; marked sort_positions for the CPU's own codes.
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0) ({
// CHECK:      }) {copy_inputs = [-1, -1, 0, 0], domain = [3], fills = [0, 1], indexed = [0, 1, 2, 3, 4], {{.*}} sort_positions = 1}
"func.func"() ({
^bb0(%arg0: tensor<3x50xf64>):
  %0 = "array.argsort"(%arg0) {axis = 1} : (tensor<3x50xf64>) -> tensor<3x50xi64>
  "func.return"(%0) : (tensor<3x50xi64>) -> ()
}) {function_type = (tensor<3x50xf64>) -> tensor<3x50xi64>, sym_name = "argsort_rows"} : () -> ()
