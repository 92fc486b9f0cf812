// canonicalize on scf ops (passes/scf_rules.py), at the array level and inside kernel bodies:
// constant conditions, loops of zero or one iteration, carried values passed through or unused,
// and the folders of the ops inside regions. Each rule also has a case where it must not fire.

// An scf.if on a constant true is its then-branch, inlined.
// RUN: canonicalize
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>):
// CHECK-NOT:  "scf.if"
// CHECK:      [[E:%[0-9]+]] = "array.exp"([[X]])
// CHECK-NEXT: "func.return"([[E]])
"func.func"() ({
^bb0(%x: tensor<4xf32>):
  %c = "array.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %r = "scf.if"(%c) ({
    %e = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%e) : (tensor<4xf32>) -> ()
  }, {
    %n = "array.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%n) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  "func.return"(%r) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "if_true"} : () -> ()

// -----
// Inside a kernel body, an scf.if on a constant false i1 is its else-branch; the comparison
// that made the condition folds first.
// RUN: canonicalize,dce
// CHECK-LABEL: "kernel.generic"
// CHECK:      ^bb0([[A:%arg[0-9]+]]: f32):
// CHECK-NOT:  "scf.if"
// CHECK:      [[N:%[0-9]+]] = "arith.negf"([[A]])
// CHECK-NEXT: "kernel.yield"([[N]])
"func.func"() ({
^bb0(%x: tensor<4xf32>):
  %k = "kernel.generic"(%x) ({
  ^bb0(%a: f32):
    %one = "arith.constant"() {value = 1 : i64} : () -> i64
    %two = "arith.constant"() {value = 2 : i64} : () -> i64
    %c = "arith.cmpi"(%two, %one) {predicate = "slt"} : (i64, i64) -> i1
    %r = "scf.if"(%c) ({
      %e = "math.exp"(%a) : (f32) -> f32
      "scf.yield"(%e) : (f32) -> ()
    }, {
      %n = "arith.negf"(%a) : (f32) -> f32
      "scf.yield"(%n) : (f32) -> ()
    }) : (i1) -> f32
    "kernel.yield"(%r) : (f32) -> ()
  }) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%k) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "if_false_in_kernel"} : () -> ()

// -----
// A condition that is not constant keeps the scf.if; a result both branches yield as the same
// outside value is that value, and the results left unused go.
// RUN: canonicalize
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>, [[C:%arg[0-9]+]]: tensor<i1>):
// CHECK:      [[R:%[0-9]+]] = "scf.if"([[C]]) ({
// CHECK-NEXT:   [[E:%[0-9]+]] = "array.exp"([[X]])
// CHECK-NEXT:   "scf.yield"([[E]]) : (tensor<4xf32>) -> ()
// CHECK:        "scf.yield"([[X]]) : (tensor<4xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<4xf32>
// CHECK-NEXT: "func.return"([[R]], [[X]])
"func.func"() ({
^bb0(%x: tensor<4xf32>, %c: tensor<i1>):
  %r, %same = "scf.if"(%c) ({
    %e = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%e, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }, {
    "scf.yield"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  "func.return"(%r, %same) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "if_unknown"} : () -> ()

// -----
// Branches that yield the same value defined inside each are not merged: it is not one value.
// RUN: canonicalize
// CHECK: "scf.if"
// CHECK: "scf.yield"(%{{[0-9]+}}) : (tensor<4xf32>) -> ()
// CHECK: "scf.yield"(%{{[0-9]+}}) : (tensor<4xf32>) -> ()
"func.func"() ({
^bb0(%x: tensor<4xf32>, %c: tensor<i1>):
  %r = "scf.if"(%c) ({
    %e = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%e) : (tensor<4xf32>) -> ()
  }, {
    %e2 = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%e2) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  "func.return"(%r) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, sym_name = "if_inner_values"} : () -> ()

// -----
// An scf.for from 5 to 5, and one from 0 to 5 by -1, run no iteration: they are their inits.
// RUN: canonicalize,dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>):
// CHECK-NOT:  "scf.for"
// CHECK:      "func.return"([[X]], [[X]])
"func.func"() ({
^bb0(%x: tensor<4xf32>):
  %five = "array.constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %zero = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %down = "array.constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%five, %five, %one, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %y = "array.add"(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  %s = "scf.for"(%zero, %five, %down, %x) ({
  ^bb0(%j: tensor<i64>, %acc2: tensor<4xf32>):
    %y2 = "array.mul"(%acc2, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y2) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%r, %s) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "for_zero_trips"} : () -> ()

// -----
// From 5 down to 0 by -1 is five iterations, and a bound that is not constant or a zero step
// says nothing: all three loops stay.
// RUN: canonicalize,dce
// CHECK: "scf.for"
// CHECK: "scf.for"
// CHECK: "scf.for"
"func.func"() ({
^bb0(%x: tensor<4xf32>, %n: tensor<i64>):
  %five = "array.constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %zero = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %down = "array.constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%five, %zero, %down, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %y = "array.add"(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  %s = "scf.for"(%zero, %n, %five, %r) ({
  ^bb0(%j: tensor<i64>, %acc2: tensor<4xf32>):
    %y2 = "array.mul"(%acc2, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y2) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  %t = "scf.for"(%zero, %five, %zero, %s) ({
  ^bb0(%k: tensor<i64>, %acc3: tensor<4xf32>):
    %y3 = "array.sub"(%acc3, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y3) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%t) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>, sym_name = "for_many_trips"} : () -> ()

// -----
// One iteration (3 to 4 by 1; 0 to -1 by -1) inlines the body with iv = lb; the folders then
// see the constant iv: x + 3, then + 0.
// RUN: canonicalize
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xi64>):
// CHECK-NOT:  "scf.for"
// CHECK:      [[THREE:%[0-9]+]] = "array.constant"() {value = dense<3> : tensor<4xi64>}
// CHECK-NEXT: [[Y:%[0-9]+]] = "array.add"([[X]], [[THREE]])
// CHECK-NEXT: "func.return"([[Y]])
"func.func"() ({
^bb0(%x: tensor<4xi64>):
  %three = "array.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %four = "array.constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %one = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %zero = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %down = "array.constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%three, %four, %one, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xi64>):
    %b = "array.broadcast_in_dim"(%i) {broadcast_dimensions = []} : (tensor<i64>) -> tensor<4xi64>
    %y = "array.add"(%acc, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    "scf.yield"(%y) : (tensor<4xi64>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xi64>) -> tensor<4xi64>
  %s = "scf.for"(%zero, %down, %down, %r) ({
  ^bb0(%j: tensor<i64>, %acc2: tensor<4xi64>):
    %b2 = "array.broadcast_in_dim"(%j) {broadcast_dimensions = []} : (tensor<i64>) -> tensor<4xi64>
    %y2 = "array.add"(%acc2, %b2) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    "scf.yield"(%y2) : (tensor<4xi64>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xi64>) -> tensor<4xi64>
  "func.return"(%s) : (tensor<4xi64>) -> ()
}) {function_type = (tensor<4xi64>) -> tensor<4xi64>, sym_name = "for_one_trip"} : () -> ()

// -----
// An scf.while whose condition is constant false runs its cond region once and is its inits;
// one whose condition is computed stays.
// RUN: canonicalize,dce
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>, [[C:%arg[0-9]+]]: tensor<i1>):
// CHECK-NEXT: [[W:%[0-9]+]] = "scf.while"([[X]])
// CHECK:      "scf.condition"([[C]])
// CHECK:      "func.return"([[X]], [[W]])
"func.func"() ({
^bb0(%x: tensor<4xf32>, %c: tensor<i1>):
  %r = "scf.while"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %f = "array.constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
    "scf.condition"(%f) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<4xf32>):
    %y = "array.add"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %w = "scf.while"(%x) ({
  ^bb0(%a2: tensor<4xf32>):
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b2: tensor<4xf32>):
    %y2 = "array.add"(%b2, %b2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y2) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%r, %w) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "while_false"} : () -> ()

// -----
// A carried value the body yields unchanged (its own block argument, or the init) is the init:
// the loop no longer carries it, and its uses, inside the body and after the loop, read the init.
// RUN: canonicalize
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>, [[Y:%arg[0-9]+]]: tensor<4xf32>, [[N:%arg[0-9]+]]: tensor<i64>):
// CHECK:      [[R:%[0-9]+]] = "scf.for"(%{{[0-9]+}}, [[N]], %{{[0-9]+}}, [[X]]) ({
// CHECK-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<i64>, [[ACC:%arg[0-9]+]]: tensor<4xf32>):
// CHECK-NEXT:   [[S:%[0-9]+]] = "array.add"([[ACC]], [[Y]])
// CHECK-NEXT:   [[T:%[0-9]+]] = "array.mul"([[S]], [[X]])
// CHECK-NEXT:   "scf.yield"([[T]]) : (tensor<4xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: "func.return"([[R]], [[Y]], [[X]])
"func.func"() ({
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r, %p, %q = "scf.for"(%lb, %n, %st, %x, %y, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>, %same: tensor<4xf32>, %init: tensor<4xf32>):
    %s = "array.add"(%acc, %same) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = "array.mul"(%s, %init) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%t, %same, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  "func.return"(%r, %p, %q) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "for_pass_through"} : () -> ()

// -----
// In a while loop a passed-through value is the init in both regions.
// RUN: canonicalize
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<f32>, [[LIMIT:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: [[W:%[0-9]+]] = "scf.while"([[X]]) ({
// CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT:   [[C:%[0-9]+]] = "array.lt"([[A]], [[LIMIT]])
// CHECK-NEXT:   "scf.condition"([[C]])
// CHECK:      ^bb0([[B:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT:   [[Y:%[0-9]+]] = "array.add"([[B]], [[LIMIT]])
// CHECK-NEXT:   "scf.yield"([[Y]]) : (tensor<f32>) -> ()
// CHECK:      "func.return"([[W]], [[LIMIT]])
"func.func"() ({
^bb0(%x: tensor<f32>, %limit: tensor<f32>):
  %r, %l = "scf.while"(%x, %limit) ({
  ^bb0(%a: tensor<f32>, %la: tensor<f32>):
    %c = "array.lt"(%a, %la) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<f32>, %lb: tensor<f32>):
    %y = "array.add"(%b, %lb) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%y, %lb) : (tensor<f32>, tensor<f32>) -> ()
  }) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  "func.return"(%r, %l) : (tensor<f32>, tensor<f32>) -> ()
}) {function_type = (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>), sym_name = "while_pass_through"} : () -> ()

// -----
// A carried value whose result is unused and whose updates feed only themselves goes, with the
// ops that computed it; one that feeds a live carried value, or the condition, stays.
// RUN: canonicalize
// CHECK:      "scf.while"(%arg0, %arg1) ({
// CHECK-NEXT: ^bb0([[I:%arg[0-9]+]]: tensor<i64>, [[S:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT:   "array.lt"([[I]], %arg2)
// CHECK:      ^bb0([[I2:%arg[0-9]+]]: tensor<i64>, [[S2:%arg[0-9]+]]: tensor<f32>):
// CHECK-NOT:    "array.mul"
// CHECK:        "scf.yield"
// CHECK-SAME:   (tensor<i64>, tensor<f32>) -> ()
// CHECK-NEXT: }) : (tensor<i64>, tensor<f32>) -> (tensor<i64>, tensor<f32>)
"func.func"() ({
^bb0(%i0: tensor<i64>, %s0: tensor<f32>, %n: tensor<i64>, %p0: tensor<f32>):
  %one = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %i, %s, %p = "scf.while"(%i0, %s0, %p0) ({
  ^bb0(%ci: tensor<i64>, %cs: tensor<f32>, %cp: tensor<f32>):
    %c = "array.lt"(%ci, %n) : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%bi: tensor<i64>, %bs: tensor<f32>, %bp: tensor<f32>):
    %ni = "array.add"(%bi, %one) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %f = "array.convert"(%bi) : (tensor<i64>) -> tensor<f32>
    %ns = "array.add"(%bs, %f) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %np = "array.mul"(%bp, %bp) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%ni, %ns, %np) : (tensor<i64>, tensor<f32>, tensor<f32>) -> ()
  }) : (tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<i64>, tensor<f32>, tensor<f32>)
  "func.return"(%s) : (tensor<f32>) -> ()
}) {function_type = (tensor<i64>, tensor<f32>, tensor<i64>, tensor<f32>) -> tensor<f32>, sym_name = "while_dead_carry"} : () -> ()

// -----
// Two unused carried values that only feed each other go together; a loop that keeps none is
// left for dce.
// RUN: canonicalize
// CHECK:      "scf.for"(%{{[0-9]+}}, %arg1, %{{[0-9]+}}) ({
// CHECK-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<i64>):
// CHECK-NEXT:   "scf.yield"() : () -> ()
// CHECK-NEXT: }) : (tensor<i64>, tensor<i64>, tensor<i64>) -> ()
"func.func"() ({
^bb0(%x: tensor<4xf32>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %a, %b = "scf.for"(%lb, %n, %st, %x, %x) ({
  ^bb0(%i: tensor<i64>, %u: tensor<4xf32>, %v: tensor<4xf32>):
    %nu = "array.exp"(%v) : (tensor<4xf32>) -> tensor<4xf32>
    %nv = "array.neg"(%u) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%nu, %nv) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  "func.return"(%x) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>, sym_name = "for_dead_pair"} : () -> ()

// -----
// A scalar loop in a kernel body: its constant arithmetic folds (1 + 2 is 3) and the carried
// value that only passes through is the init; the loop, with its result used, stays.
// RUN: canonicalize,dce
// CHECK:      "kernel.generic"(%arg0) ({
// CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: f32):
// CHECK:      [[R:%[0-9]+]] = "scf.for"
// CHECK-NEXT: ^bb0([[I:%arg[0-9]+]]: i64, [[ACC:%arg[0-9]+]]: i64):
// CHECK-NEXT:   [[THREE:%[0-9]+]] = "arith.constant"() {value = 3 : i64}
// CHECK-NEXT:   [[M:%[0-9]+]] = "arith.muli"([[I]], [[THREE]])
// CHECK-NEXT:   [[S:%[0-9]+]] = "arith.addi"([[ACC]], [[M]])
// CHECK-NEXT:   "scf.yield"([[S]]) : (i64) -> ()
// CHECK-NEXT: }) : (i64, i64, i64, i64) -> i64
// CHECK-NEXT: [[C:%[0-9]+]] = "arith.sitofp"([[R]])
// CHECK-NEXT: "arith.addf"([[C]], [[A]])
"func.func"() ({
^bb0(%x: tensor<4xf32>):
  %k = "kernel.generic"(%x) ({
  ^bb0(%a: f32):
    %zero = "arith.constant"() {value = 0 : i64} : () -> i64
    %one = "arith.constant"() {value = 1 : i64} : () -> i64
    %two = "arith.constant"() {value = 2 : i64} : () -> i64
    %ten = "arith.constant"() {value = 10 : i64} : () -> i64
    %r, %f = "scf.for"(%zero, %ten, %one, %zero, %a) ({
    ^bb0(%i: i64, %acc: i64, %same: f32):
      %three = "arith.addi"(%one, %two) : (i64, i64) -> i64
      %m = "arith.muli"(%i, %three) : (i64, i64) -> i64
      %s = "arith.addi"(%acc, %m) : (i64, i64) -> i64
      "scf.yield"(%s, %same) : (i64, f32) -> ()
    }) : (i64, i64, i64, i64, f32) -> (i64, f32)
    %c = "arith.sitofp"(%r) : (i64) -> f32
    %y = "arith.addf"(%c, %f) : (f32, f32) -> f32
    "kernel.yield"(%y) : (f32) -> ()
  }) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%k) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "kernel_loop"} : () -> ()
