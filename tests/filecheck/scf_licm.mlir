// licm (passes/licm.py): side-effect-free ops whose operands are defined outside a loop move to
// just before it, chains and nested ops included, inner loops first; ops reading the induction
// variable or a carried value stay.

// exp(x) and its broadcast product are invariant and move; the op on the iv and the one on the
// carried value stay.
// RUN: licm
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<4xf32>, [[N:%arg[0-9]+]]: tensor<i64>):
// CHECK:      [[E:%[0-9]+]] = "array.exp"([[X]])
// CHECK-NEXT: [[M:%[0-9]+]] = "array.mul"([[E]], [[X]])
// CHECK-NEXT: "scf.for"
// CHECK-NEXT: ^bb0([[I:%arg[0-9]+]]: tensor<i64>, [[ACC:%arg[0-9]+]]: tensor<4xf32>):
// CHECK-NEXT:   [[C:%[0-9]+]] = "array.convert"([[I]])
// CHECK-NEXT:   [[B:%[0-9]+]] = "array.broadcast_in_dim"([[C]])
// CHECK-NEXT:   [[A:%[0-9]+]] = "array.add"([[ACC]], [[M]])
// CHECK-NEXT:   [[S:%[0-9]+]] = "array.add"([[A]], [[B]])
// CHECK-NEXT:   "scf.yield"([[S]])
"func.func"() ({
^bb0(%x: tensor<4xf32>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %c = "array.convert"(%i) : (tensor<i64>) -> tensor<f32>
    %b = "array.broadcast_in_dim"(%c) {broadcast_dimensions = []} : (tensor<f32>) -> tensor<4xf32>
    %e = "array.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %m = "array.mul"(%e, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %a = "array.add"(%acc, %m) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %s = "array.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%r) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>, sym_name = "licm_for"} : () -> ()

// -----
// In a nest, an op on the outer iv leaves the inner loop only; an op on neither leaves both;
// an invariant scf.if with pure branches moves whole; one reading the inner iv stays.
// RUN: licm
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<f32>, [[N:%arg[0-9]+]]: tensor<i64>, [[P:%arg[0-9]+]]: tensor<i1>):
// CHECK:      [[E:%[0-9]+]] = "array.exp"([[X]])
// CHECK-NEXT: [[IF:%[0-9]+]] = "scf.if"([[P]])
// CHECK:      "scf.for"
// CHECK-NEXT: ^bb0([[I:%arg[0-9]+]]: tensor<i64>, %arg{{[0-9]+}}: tensor<f32>):
// CHECK-NEXT:   [[CI:%[0-9]+]] = "array.convert"([[I]])
// CHECK-NEXT:   "scf.for"
// CHECK-NEXT:   ^bb0([[J:%arg[0-9]+]]: tensor<i64>, [[ACC:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT:     [[Q:%[0-9]+]] = "array.lt"([[J]], [[I]])
// CHECK-NEXT:     "scf.if"([[Q]])
// CHECK:          "array.add"([[ACC]], [[CI]])
"func.func"() ({
^bb0(%x: tensor<f32>, %n: tensor<i64>, %p: tensor<i1>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%i: tensor<i64>, %outer: tensor<f32>):
    %s = "scf.for"(%lb, %n, %st, %outer) ({
    ^bb0(%j: tensor<i64>, %acc: tensor<f32>):
      %ci = "array.convert"(%i) : (tensor<i64>) -> tensor<f32>
      %e = "array.exp"(%x) : (tensor<f32>) -> tensor<f32>
      %inv = "scf.if"(%p) ({
        %ne = "array.neg"(%e) : (tensor<f32>) -> tensor<f32>
        "scf.yield"(%ne) : (tensor<f32>) -> ()
      }, {
        "scf.yield"(%e) : (tensor<f32>) -> ()
      }) : (tensor<i1>) -> tensor<f32>
      %q = "array.lt"(%j, %i) : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %v = "scf.if"(%q) ({
        "scf.yield"(%inv) : (tensor<f32>) -> ()
      }, {
        "scf.yield"(%acc) : (tensor<f32>) -> ()
      }) : (tensor<i1>) -> tensor<f32>
      %t = "array.add"(%acc, %ci) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %u = "array.add"(%t, %v) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "scf.yield"(%u) : (tensor<f32>) -> ()
    }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%s) : (tensor<f32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<f32>
  "func.return"(%r) : (tensor<f32>) -> ()
}) {function_type = (tensor<f32>, tensor<i64>, tensor<i1>) -> tensor<f32>, sym_name = "licm_nest"} : () -> ()

// -----
// A while loop: the invariant limit computation in the cond region and the invariant step in
// the body move; the comparison on the carried value stays.
// RUN: licm
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<f32>, [[Y:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: [[L:%[0-9]+]] = "array.mul"([[Y]], [[Y]])
// CHECK-NEXT: [[D:%[0-9]+]] = "array.sqrt"([[Y]])
// CHECK-NEXT: "scf.while"([[X]])
// CHECK-NEXT: ^bb0([[A:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT:   [[C:%[0-9]+]] = "array.lt"([[A]], [[L]])
// CHECK-NEXT:   "scf.condition"([[C]])
// CHECK:      ^bb0([[B:%arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT:   [[S:%[0-9]+]] = "array.add"([[B]], [[D]])
// CHECK-NEXT:   "scf.yield"([[S]])
"func.func"() ({
^bb0(%x: tensor<f32>, %y: tensor<f32>):
  %r = "scf.while"(%x) ({
  ^bb0(%a: tensor<f32>):
    %l = "array.mul"(%y, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %c = "array.lt"(%a, %l) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<f32>):
    %d = "array.sqrt"(%y) : (tensor<f32>) -> tensor<f32>
    %s = "array.add"(%b, %d) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%s) : (tensor<f32>) -> ()
  }) : (tensor<f32>) -> tensor<f32>
  "func.return"(%r) : (tensor<f32>) -> ()
}) {function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "licm_while"} : () -> ()

// -----
// A scalar loop in a kernel body: the invariant product of the kernel's inputs moves into the
// body before the loop. An inner loop that may have a zero step is not moved, though invariant.
// RUN: licm
// CHECK:      ^bb0([[A:%arg[0-9]+]]: f32, [[B:%arg[0-9]+]]: f32, [[S:%arg[0-9]+]]: i64):
// CHECK:      [[M:%[0-9]+]] = "arith.mulf"([[A]], [[B]])
// CHECK-NEXT: "scf.for"
// CHECK-NEXT: ^bb0(%arg{{[0-9]+}}: i64, [[ACC:%arg[0-9]+]]: f32):
// CHECK-NEXT:   [[T:%[0-9]+]] = "scf.for"(%{{[0-9]+}}, %{{[0-9]+}}, [[S]], [[A]])
// CHECK:        "arith.addf"([[ACC]], [[M]])
"func.func"() ({
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xi64>):
  %k = "kernel.generic"(%x, %y, %z) ({
  ^bb0(%a: f32, %b: f32, %step: i64):
    %zero = "arith.constant"() {value = 0 : i64} : () -> i64
    %one = "arith.constant"() {value = 1 : i64} : () -> i64
    %ten = "arith.constant"() {value = 10 : i64} : () -> i64
    %r = "scf.for"(%zero, %ten, %one, %a) ({
    ^bb0(%i: i64, %acc: f32):
      %t = "scf.for"(%zero, %ten, %step, %a) ({
      ^bb0(%j: i64, %w: f32):
        "scf.yield"(%w) : (f32) -> ()
      }) : (i64, i64, i64, f32) -> f32
      %m = "arith.mulf"(%a, %b) : (f32, f32) -> f32
      %s = "arith.addf"(%acc, %m) : (f32, f32) -> f32
      %u = "arith.addf"(%s, %t) : (f32, f32) -> f32
      "scf.yield"(%u) : (f32) -> ()
    }) : (i64, i64, i64, f32) -> f32
    "kernel.yield"(%r) : (f32) -> ()
  }) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  "func.return"(%k) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>, sym_name = "licm_kernel"} : () -> ()

// -----
// An element read x[k] checks its index, and an index out of range raises IndexError: it leaves
// a loop only if the loop surely runs (constant bounds with an iteration, or a while loop's
// cond region), so a loop that runs zero times never raises for it. Its pure neighbour moves.
// RUN: licm
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<8xf32>, [[K:%arg[0-9]+]]: tensor<i64>, [[N:%arg[0-9]+]]: tensor<i64>):
// CHECK:      [[E:%[0-9]+]] = "array.exp"([[X]])
// CHECK-NEXT: "scf.for"(%{{[0-9]+}}, [[N]],
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   "array.gather"([[X]], [[K]])
// CHECK:      [[G2:%[0-9]+]] = "array.gather"([[X]], [[K]])
// CHECK-NEXT: "scf.for"(%{{[0-9]+}}, %{{[0-9]+}},
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   "array.add"(%arg{{[0-9]+}}, [[G2]])
// CHECK:      [[G3:%[0-9]+]] = "array.gather"([[X]], [[K]])
// CHECK-NEXT: "scf.while"
// CHECK:        "array.lt"(%arg{{[0-9]+}}, [[G3]])
// CHECK:      ^bb0(
// CHECK-NEXT:   "array.gather"([[X]], [[K]])
"func.func"() ({
^bb0(%x: tensor<8xf32>, %k: tensor<i64>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %three = "array.constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %z = "array.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %r = "scf.for"(%lb, %n, %st, %z) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<f32>):
    %g = "array.gather"(%x, %k) {axis = 0} : (tensor<8xf32>, tensor<i64>) -> tensor<f32>
    %e = "array.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
    %s = "array.add"(%acc, %g) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%s) : (tensor<f32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<f32>
  %r2 = "scf.for"(%lb, %three, %st, %r) ({
  ^bb0(%j: tensor<i64>, %acc2: tensor<f32>):
    %g2 = "array.gather"(%x, %k) {axis = 0} : (tensor<8xf32>, tensor<i64>) -> tensor<f32>
    %s2 = "array.add"(%acc2, %g2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%s2) : (tensor<f32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<f32>
  %w = "scf.while"(%r2) ({
  ^bb0(%a: tensor<f32>):
    %g3 = "array.gather"(%x, %k) {axis = 0} : (tensor<8xf32>, tensor<i64>) -> tensor<f32>
    %c = "array.lt"(%a, %g3) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<f32>):
    %g4 = "array.gather"(%x, %k) {axis = 0} : (tensor<8xf32>, tensor<i64>) -> tensor<f32>
    %s4 = "array.add"(%b, %g4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "scf.yield"(%s4) : (tensor<f32>) -> ()
  }) : (tensor<f32>) -> tensor<f32>
  "func.return"(%w) : (tensor<f32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<i64>, tensor<i64>) -> tensor<f32>, sym_name = "licm_index_checks"} : () -> ()

// -----
// After kernelize, in a loop run on the host: an invariant kernel moves out of a loop that may
// run zero times, unless its body checks an index (it could raise where the loop would not).
// RUN: licm
// CHECK:      ^bb0([[X:%arg[0-9]+]]: tensor<8xf32>, [[IDX:%arg[0-9]+]]: tensor<4xi64>, [[Y:%arg[0-9]+]]: tensor<4xf32>, [[N:%arg[0-9]+]]: tensor<i64>):
// CHECK:      [[E:%[0-9]+]] = "kernel.generic"([[Y]])
// CHECK:      "scf.for"
// CHECK-NEXT: ^bb0(
// CHECK-NEXT:   [[G:%[0-9]+]] = "kernel.generic"([[X]], [[IDX]])
// CHECK-NEXT:   ^bb0(
// CHECK-NEXT:     "kernel.check_index"
"func.func"() ({
^bb0(%x: tensor<8xf32>, %idx: tensor<4xi64>, %y: tensor<4xf32>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%lb, %n, %st, %y) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %g = "kernel.generic"(%x, %idx) ({
    ^bb0(%t: tensor<8xf32>, %j: i64):
      %p = "kernel.check_index"(%j) {axis = 0, size = 8} : (i64) -> index
      %v = "kernel.extract"(%t, %p) : (tensor<8xf32>, index) -> f32
      "kernel.yield"(%v) : (f32) -> ()
    }) {indexed = [0], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<8xf32>, tensor<4xi64>) -> tensor<4xf32>
    %e = "kernel.generic"(%y) ({
    ^bb0(%a: f32):
      %m = "math.exp"(%a) : (f32) -> f32
      "kernel.yield"(%m) : (f32) -> ()
    }) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
    %s = "kernel.generic"(%acc, %g, %e) ({
    ^bb0(%a1: f32, %a2: f32, %a3: f32):
      %s1 = "arith.addf"(%a1, %a2) : (f32, f32) -> f32
      %s2 = "arith.addf"(%s1, %a3) : (f32, f32) -> f32
      "kernel.yield"(%s2) : (f32) -> ()
    }) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%r) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<4xi64>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>, sym_name = "licm_kernels"} : () -> ()
