// The kernel form of array.compact (passes/kernelize/compact.py): one kernel with no iteration
// space; where the count is above 0, a branch-free for loop writing every row at the count,
// marked compaction (the count never passes the position: codegen/compress.py may store whole
// vector groups at it).
// RUN: kernelize
// CHECK:      "kernel.generic"(%arg0, %arg1, %arg2) ({
// CHECK:        "arith.cmpi"({{.*}}) {predicate = "sgt"}
// CHECK:        "scf.if"
// CHECK:          "scf.for"
// CHECK:            "kernel.extract"
// CHECK:            "kernel.insert"({{.*}}) {mode = "set", result = 0}
// CHECK:            "arith.select"
// CHECK:          }) {compaction = true}
// CHECK:      }) {domain = [], fills = [0], indexed = [0, 2, 3]
"func.func"() ({
^bb0(%arg0: tensor<40xi1>, %arg1: tensor<i64>, %arg2: tensor<40xf32>):
  %0 = "array.compact"(%arg0, %arg1, %arg2) : (tensor<40xi1>, tensor<i64>, tensor<40xf32>) -> tensor<40xf32>
  "func.return"(%0) : (tensor<40xf32>) -> ()
}) {function_type = (tensor<40xi1>, tensor<i64>, tensor<40xf32>) -> tensor<40xf32>, sym_name = "compact_rows"} : () -> ()

// -----
// Without rows: the kept positions, as int64.
// RUN: kernelize
// CHECK:        "arith.bitcast"({{.*}}) : (index) -> i64
// CHECK:      }) {domain = [], fills = [0], indexed = [0, 2]
"func.func"() ({
^bb0(%arg0: tensor<40xi1>, %arg1: tensor<i64>):
  %0 = "array.compact"(%arg0, %arg1) : (tensor<40xi1>, tensor<i64>) -> tensor<40xi64>
  "func.return"(%0) : (tensor<40xi64>) -> ()
}) {function_type = (tensor<40xi1>, tensor<i64>) -> tensor<40xi64>, sym_name = "compact_positions"} : () -> ()

// -----
// RUN: kernelize
// CHECK-ERROR: needs a 0-d i64 count of the mask
"func.func"() ({
^bb0(%arg0: tensor<40xi1>, %arg1: tensor<i32>):
  %0 = "array.compact"(%arg0, %arg1) : (tensor<40xi1>, tensor<i32>) -> tensor<40xi64>
  "func.return"(%0) : (tensor<40xi64>) -> ()
}) {function_type = (tensor<40xi1>, tensor<i32>) -> tensor<40xi64>, sym_name = "bad_count"} : () -> ()
