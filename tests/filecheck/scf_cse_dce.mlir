// cse and dce with scf regions (passes/cse.py, passes/dce.py): CSE is scoped, so a value from
// outside may replace one inside a region, never the other way round; DCE erases scf ops whose
// results are unused and whose regions have no side effects, and dead ops inside regions.

// The exp in the body equals the one before the loop and is replaced by it; the neg after the
// loop equals one in the body but keeps its own value (the body's does not dominate it).
// RUN: cse
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>, [[N:%arg[0-9]+]]: tensor<i64>):
// CHECK:      [[E:%[0-9]+]] = "array.exp"([[X]])
// CHECK:      "scf.for"
// CHECK-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<i64>, [[ACC:%arg[0-9]+]]: tensor<4xf32>):
// CHECK-NEXT:   [[G:%[0-9]+]] = "array.neg"([[X]])
// CHECK-NEXT:   [[A:%[0-9]+]] = "array.add"([[ACC]], [[E]])
// CHECK-NEXT:   [[B:%[0-9]+]] = "array.add"([[A]], [[G]])
// CHECK-NEXT:   "scf.yield"([[B]])
// CHECK:      [[H:%[0-9]+]] = "array.neg"([[X]])
// CHECK-NEXT: "func.return"(%{{[0-9]+}}, [[H]])
"func.func"() ({
^bb0(%x: tensor<4xf32>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %e = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r = "scf.for"(%lb, %n, %st, %e) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %g = "array.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %e2 = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %a = "array.add"(%acc, %e2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = "array.add"(%a, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%b) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  %h = "array.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%r, %h) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "cse_scoped"} : () -> ()

// -----
// The two branches of an scf.if compute the same op, each in its own scope: both stay. Two
// equal loops are not merged either (scf ops are not Pure).
// RUN: cse
// CHECK:      "scf.if"
// CHECK-NEXT:   "array.exp"
// CHECK:        "array.exp"
// CHECK:      "scf.while"
// CHECK:      "scf.while"
"func.func"() ({
^bb0(%x: tensor<4xf32>, %c: tensor<i1>):
  %r = "scf.if"(%c) ({
    %e = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%e) : (tensor<4xf32>) -> ()
  }, {
    %e2 = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %n = "array.neg"(%e2) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%n) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  %w1 = "scf.while"(%r) ({
  ^bb0(%a: tensor<4xf32>):
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<4xf32>):
    "scf.yield"(%b) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %w2 = "scf.while"(%r) ({
  ^bb0(%a2: tensor<4xf32>):
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b2: tensor<4xf32>):
    "scf.yield"(%b2) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%w1, %w2) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "cse_branches"} : () -> ()

// -----
// In a kernel that writes, two reads of one element merge only with no write between them.
// RUN: cse
// CHECK:      [[P:%[0-9]+]] = "kernel.index"()
// CHECK-NEXT: [[R1:%[0-9]+]] = "kernel.extract"(%arg{{[0-9]+}}, [[P]])
// CHECK-NEXT: [[S:%[0-9]+]] = "arith.addf"([[R1]], [[R1]])
// CHECK-NEXT: "kernel.insert"([[S]], [[P]])
// CHECK-NEXT: [[R3:%[0-9]+]] = "kernel.extract"(%arg{{[0-9]+}}, [[P]])
// CHECK-NEXT: "kernel.insert"([[R3]], [[P]])
"func.func"() ({
^bb0(%x: tensor<4xf32>):
  %k = "kernel.generic"(%x) ({
  ^bb0(%t: tensor<4xf32>):
    %p = "kernel.index"() {dim = 0} : () -> index
    %r1 = "kernel.extract"(%t, %p) : (tensor<4xf32>, index) -> f32
    %r2 = "kernel.extract"(%t, %p) : (tensor<4xf32>, index) -> f32
    %s = "arith.addf"(%r1, %r2) : (f32, f32) -> f32
    "kernel.insert"(%s, %p) {mode = "set", result = 0} : (f32, index) -> ()
    %r3 = "kernel.extract"(%t, %p) : (tensor<4xf32>, index) -> f32
    "kernel.insert"(%r3, %p) {mode = "add", result = 0} : (f32, index) -> ()
    "kernel.yield"() : () -> ()
  }) {copy_inputs = [0], domain = [4], indexed = [0, 1], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%k) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "cse_reads_and_writes"} : () -> ()

// -----
// DCE: a loop and a branch whose results are unused and whose regions are pure go; the dead
// op in the body of a loop that stays goes.
// RUN: dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>, [[N:%arg[0-9]+]]: tensor<i64>, [[C:%arg[0-9]+]]: tensor<i1>):
// CHECK-NOT:  "scf.if"
// CHECK:      [[R:%[0-9]+]] = "scf.for"
// CHECK-NEXT: ^bb0(
// CHECK-NOT:    "array.exp"
// CHECK:        "array.add"
// CHECK-NEXT:   "scf.yield"
// CHECK-NEXT: })
// CHECK-NEXT: "func.return"([[R]])
"func.func"() ({
^bb0(%x: tensor<4xf32>, %n: tensor<i64>, %c: tensor<i1>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %dead = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %y = "array.mul"(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %inner = "scf.if"(%c) ({
      "scf.yield"(%y) : (tensor<4xf32>) -> ()
    }, {
      "scf.yield"(%acc) : (tensor<4xf32>) -> ()
    }) : (tensor<i1>) -> tensor<4xf32>
    "scf.yield"(%inner) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  "scf.if"(%c) ({
    %z = "array.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"() : () -> ()
  }, {
    "scf.yield"() : () -> ()
  }) : (tensor<i1>) -> ()
  %r = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%j: tensor<i64>, %acc2: tensor<4xf32>):
    %unused = "array.exp"(%acc2) : (tensor<4xf32>) -> tensor<4xf32>
    %s = "array.add"(%acc2, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%r) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i64>, tensor<i1>) -> tensor<4xf32>, sym_name = "dce_pure_regions"} : () -> ()

// -----
// DCE keeps an unused loop whose step may be zero (a run-time error to report), and a loop
// whose result is used after it.
// RUN: dce
// CHECK: "scf.for"(%{{[0-9]+}}, %arg1, %arg2, %arg0)
// CHECK: "scf.for"(%{{[0-9]+}}, %arg1, %{{[0-9]+}}, %arg0)
"func.func"() ({
^bb0(%x: tensor<4xf32>, %n: tensor<i64>, %step: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %dead = "scf.for"(%lb, %n, %step, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    "scf.yield"(%acc) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  %r = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%j: tensor<i64>, %acc2: tensor<4xf32>):
    %s = "array.add"(%acc2, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%r) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i64>, tensor<i64>) -> tensor<4xf32>, sym_name = "dce_keeps"} : () -> ()
