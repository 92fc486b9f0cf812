// The scalar meaning of elementwise array ops (passes/kernelize/scalar.py and complex.py), as
// the kernelize pass writes it into kernel bodies. Each CHECK-LABEL starts the next op's kernel.

// Float predicates: isnan is an unordered compare of x with itself (an ordered one is always
// false); isinf and isfinite compare |x| with inf; sign keeps a NaN.
// RUN: kernelize
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f32):
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.cmpf"([[X]], [[X]]) {predicate = "uno"}
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f32):
// CHECK-NEXT:    [[A:%[0-9]+]] = "math.absf"([[X]])
// CHECK-NEXT:    [[INF:%[0-9]+]] = "arith.constant"() {value = 0x7F800000 : f32}
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.cmpf"([[A]], [[INF]]) {predicate = "oeq"}
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f32):
// CHECK-NEXT:    [[A:%[0-9]+]] = "math.absf"([[X]])
// CHECK-NEXT:    [[INF:%[0-9]+]] = "arith.constant"() {value = 0x7F800000 : f32}
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.cmpf"([[A]], [[INF]]) {predicate = "olt"}
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f32):
// CHECK-NEXT:    [[ZERO:%[0-9]+]] = "arith.constant"() {value = 0.0 : f32}
// CHECK-NEXT:    [[ONE:%[0-9]+]] = "arith.constant"() {value = 1.0 : f32}
// CHECK-NEXT:    [[LT:%[0-9]+]] = "arith.cmpf"([[X]], [[ZERO]]) {predicate = "olt"}
// CHECK-NEXT:    [[M1:%[0-9]+]] = "arith.constant"() {value = -1.0 : f32}
// CHECK-NEXT:    [[S1:%[0-9]+]] = "arith.select"([[LT]], [[M1]], [[ZERO]])
// CHECK-NEXT:    [[GT:%[0-9]+]] = "arith.cmpf"([[X]], [[ZERO]]) {predicate = "ogt"}
// CHECK-NEXT:    [[S2:%[0-9]+]] = "arith.select"([[GT]], [[ONE]], [[S1]])
// CHECK-NEXT:    [[NAN:%[0-9]+]] = "arith.cmpf"([[X]], [[X]]) {predicate = "uno"}
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.select"([[NAN]], [[X]], [[S2]])
// CHECK-NEXT:    "kernel.yield"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "array.isnan"(%arg0) : (tensor<4xf32>) -> tensor<4xi1>
  %1 = "array.isinf"(%arg0) : (tensor<4xf32>) -> tensor<4xi1>
  %2 = "array.isfinite"(%arg0) : (tensor<4xf32>) -> tensor<4xi1>
  %3 = "array.sign"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0, %1, %2, %3) : (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>), sym_name = "float_predicates"} : () -> ()

// -----
// Integer // and % round toward -inf for signed types (floordivsi/floormodsi, whose result for
// a zero divisor is defined as 0, see ir/dialects/arith.py) and are plain unsigned ops for
// unsigned types. Float16 // is computed in float32 and rounded once, as NumPy's half loop.
// RUN: kernelize
// CHECK-LABEL: "kernel.generic"(%arg0, %arg1)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: i32, [[Y:%arg[0-9]+]]: i32):
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.floordivsi"([[X]], [[Y]])
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg0, %arg1)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: i32, [[Y:%arg[0-9]+]]: i32):
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.floormodsi"([[X]], [[Y]])
// CHECK-LABEL: "kernel.generic"(%arg2, %arg3)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: ui16, [[Y:%arg[0-9]+]]: ui16):
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.divui"([[X]], [[Y]])
// CHECK-LABEL: "kernel.generic"(%arg2, %arg3)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: ui16, [[Y:%arg[0-9]+]]: ui16):
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.remui"([[X]], [[Y]])
// CHECK-LABEL: "kernel.generic"(%arg4, %arg5)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f16, [[Y:%arg[0-9]+]]: f16):
// CHECK-NEXT:    [[XW:%[0-9]+]] = "arith.extf"([[X]]) : (f16) -> f32
// CHECK-NEXT:    [[YW:%[0-9]+]] = "arith.extf"([[Y]]) : (f16) -> f32
// CHECK-NOT:     f16
// CHECK:         "arith.remf"([[XW]], [[YW]])
// CHECK:         "math.floor"
// CHECK:         [[Q:%[0-9]+]] = "arith.divf"([[XW]], [[YW]])
// CHECK:         [[R:%[0-9]+]] = "arith.truncf"({{%[0-9]+}}) : (f32) -> f16
// CHECK:         "kernel.yield"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>, %arg2: tensor<4xui16>, %arg3: tensor<4xui16>, %arg4: tensor<4xf16>, %arg5: tensor<4xf16>):
  %0 = "array.floordiv"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "array.rem"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = "array.floordiv"(%arg2, %arg3) : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %3 = "array.rem"(%arg2, %arg3) : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %4 = "array.floordiv"(%arg4, %arg5) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  "func.return"(%0, %1, %2, %3, %4) : (tensor<4xi32>, tensor<4xi32>, tensor<4xui16>, tensor<4xui16>, tensor<4xf16>) -> ()
}) {function_type = (tensor<4xi32>, tensor<4xi32>, tensor<4xui16>, tensor<4xui16>, tensor<4xf16>, tensor<4xf16>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xui16>, tensor<4xui16>, tensor<4xf16>), sym_name = "division"} : () -> ()

// -----
// Complex numbers work on their parts. A product is NumPy's fused form:
// re = fma(ar, br, -(ai * bi)), im = fma(ar, bi, ai * br). isnan is a NaN in either part; <
// orders by real parts (unless an imaginary part is NaN), then by imaginary parts.
// RUN: kernelize
// CHECK-LABEL: "kernel.generic"(%arg0, %arg1)
// CHECK-NEXT:  ^bb0([[A:%arg[0-9]+]]: complex<f32>, [[B:%arg[0-9]+]]: complex<f32>):
// CHECK-NEXT:    [[AR:%[0-9]+]] = "complex.re"([[A]])
// CHECK-NEXT:    [[AI:%[0-9]+]] = "complex.im"([[A]])
// CHECK-NEXT:    [[BR:%[0-9]+]] = "complex.re"([[B]])
// CHECK-NEXT:    [[BI:%[0-9]+]] = "complex.im"([[B]])
// CHECK-NEXT:    [[II:%[0-9]+]] = "arith.mulf"([[AI]], [[BI]])
// CHECK-NEXT:    [[NII:%[0-9]+]] = "arith.negf"([[II]])
// CHECK-NEXT:    [[RE:%[0-9]+]] = "math.fma"([[AR]], [[BR]], [[NII]])
// CHECK-NEXT:    [[IR:%[0-9]+]] = "arith.mulf"([[AI]], [[BR]])
// CHECK-NEXT:    [[IM:%[0-9]+]] = "math.fma"([[AR]], [[BI]], [[IR]])
// CHECK-NEXT:    [[Z:%[0-9]+]] = "complex.create"([[RE]], [[IM]]) : (f32, f32) -> complex<f32>
// CHECK-NEXT:    "kernel.yield"([[Z]])
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0([[A:%arg[0-9]+]]: complex<f32>):
// CHECK-NEXT:    [[AR:%[0-9]+]] = "complex.re"([[A]])
// CHECK-NEXT:    [[AI:%[0-9]+]] = "complex.im"([[A]])
// CHECK-NEXT:    [[N1:%[0-9]+]] = "arith.cmpf"([[AR]], [[AR]]) {predicate = "uno"}
// CHECK-NEXT:    [[N2:%[0-9]+]] = "arith.cmpf"([[AI]], [[AI]]) {predicate = "uno"}
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.ori"([[N1]], [[N2]])
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg0, %arg1)
// CHECK-NEXT:  ^bb0([[A:%arg[0-9]+]]: complex<f32>, [[B:%arg[0-9]+]]: complex<f32>):
// CHECK:         [[LT:%[0-9]+]] = "arith.cmpf"([[AR:%[0-9]+]], [[BR:%[0-9]+]]) {predicate = "olt"}
// CHECK:         [[BYRE:%[0-9]+]] = "arith.andi"([[LT]],
// CHECK-NEXT:    [[EQ:%[0-9]+]] = "arith.cmpf"([[AR]], [[BR]]) {predicate = "oeq"}
// CHECK-NEXT:    [[ILT:%[0-9]+]] = "arith.cmpf"({{%[0-9]+}}, {{%[0-9]+}}) {predicate = "olt"}
// CHECK-NEXT:    [[BYIM:%[0-9]+]] = "arith.andi"([[EQ]], [[ILT]])
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.ori"([[BYRE]], [[BYIM]])
// CHECK-NEXT:    "kernel.yield"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<4xcomplex<f32>>, %arg1: tensor<4xcomplex<f32>>):
  %0 = "array.mul"(%arg0, %arg1) : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %1 = "array.isnan"(%arg0) : (tensor<4xcomplex<f32>>) -> tensor<4xi1>
  %2 = "array.lt"(%arg0, %arg1) : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  "func.return"(%0, %1, %2) : (tensor<4xcomplex<f32>>, tensor<4xi1>, tensor<4xi1>) -> ()
}) {function_type = (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>>, tensor<4xi1>, tensor<4xi1>), sym_name = "complex_ops"} : () -> ()

// -----
// Conversions, NumPy's astype: float to int truncates (signed or unsigned), to bool is x != 0
// (unordered, so NaN is true), widths change by ext/trunc, same-width integers bitcast, bools
// convert as unsigned, complex numbers through their real part (to bool: either part nonzero).
// RUN: kernelize
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.fptosi"({{%arg[0-9]+}}) : (f64) -> i32
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.fptoui"({{%arg[0-9]+}}) : (f64) -> ui16
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f64):
// CHECK-NEXT:    [[Z:%[0-9]+]] = "arith.constant"() {value = 0.0 : f64}
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.cmpf"([[X]], [[Z]]) {predicate = "une"}
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.truncf"({{%arg[0-9]+}}) : (f64) -> f16
// CHECK-LABEL: "kernel.generic"(%arg1)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.uitofp"({{%arg[0-9]+}}) : (ui8) -> f64
// CHECK-LABEL: "kernel.generic"(%arg1)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.extui"({{%arg[0-9]+}}) : (ui8) -> i16
// CHECK-LABEL: "kernel.generic"(%arg2)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.trunci"({{%arg[0-9]+}}) : (i64) -> i8
// CHECK-LABEL: "kernel.generic"(%arg3)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.uitofp"({{%arg[0-9]+}}) : (i1) -> f32
// CHECK-LABEL: "kernel.generic"(%arg4)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.bitcast"({{%arg[0-9]+}}) : (i32) -> ui32
// CHECK-LABEL: "kernel.generic"(%arg4)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.extsi"({{%arg[0-9]+}}) : (i32) -> i64
// CHECK-LABEL: "kernel.generic"(%arg5)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    [[RE:%[0-9]+]] = "complex.re"
// CHECK-NEXT:    [[IM:%[0-9]+]] = "complex.im"
// CHECK-NEXT:    [[Z1:%[0-9]+]] = "arith.constant"() {value = 0.0 : f64}
// CHECK-NEXT:    [[C1:%[0-9]+]] = "arith.cmpf"([[RE]], [[Z1]]) {predicate = "une"}
// CHECK-NEXT:    [[Z2:%[0-9]+]] = "arith.constant"() {value = 0.0 : f64}
// CHECK-NEXT:    [[C2:%[0-9]+]] = "arith.cmpf"([[IM]], [[Z2]]) {predicate = "une"}
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.ori"([[C1]], [[C2]])
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg5)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    [[RE:%[0-9]+]] = "complex.re"
// CHECK-NEXT:    "complex.im"
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.truncf"([[RE]]) : (f64) -> f32
// CHECK-NEXT:    "kernel.yield"([[R]])
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    [[RE:%[0-9]+]] = "arith.truncf"({{%arg[0-9]+}}) : (f64) -> f32
// CHECK-NEXT:    [[IM:%[0-9]+]] = "arith.constant"() {value = 0.0 : f32}
// CHECK-NEXT:    [[R:%[0-9]+]] = "complex.create"([[RE]], [[IM]])
// CHECK-NEXT:    "kernel.yield"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<4xf64>, %arg1: tensor<4xui8>, %arg2: tensor<4xi64>, %arg3: tensor<4xi1>, %arg4: tensor<4xi32>, %arg5: tensor<4xcomplex<f64>>):
  %0 = "array.convert"(%arg0) : (tensor<4xf64>) -> tensor<4xi32>
  %1 = "array.convert"(%arg0) : (tensor<4xf64>) -> tensor<4xui16>
  %2 = "array.convert"(%arg0) : (tensor<4xf64>) -> tensor<4xi1>
  %3 = "array.convert"(%arg0) : (tensor<4xf64>) -> tensor<4xf16>
  %4 = "array.convert"(%arg1) : (tensor<4xui8>) -> tensor<4xf64>
  %5 = "array.convert"(%arg1) : (tensor<4xui8>) -> tensor<4xi16>
  %6 = "array.convert"(%arg2) : (tensor<4xi64>) -> tensor<4xi8>
  %7 = "array.convert"(%arg3) : (tensor<4xi1>) -> tensor<4xf32>
  %8 = "array.convert"(%arg4) : (tensor<4xi32>) -> tensor<4xui32>
  %9 = "array.convert"(%arg4) : (tensor<4xi32>) -> tensor<4xi64>
  %10 = "array.convert"(%arg5) : (tensor<4xcomplex<f64>>) -> tensor<4xi1>
  %11 = "array.convert"(%arg5) : (tensor<4xcomplex<f64>>) -> tensor<4xf32>
  %12 = "array.convert"(%arg0) : (tensor<4xf64>) -> tensor<4xcomplex<f32>>
  "func.return"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12) : (tensor<4xi32>, tensor<4xui16>, tensor<4xi1>, tensor<4xf16>, tensor<4xf64>, tensor<4xi16>, tensor<4xi8>, tensor<4xf32>, tensor<4xui32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf32>, tensor<4xcomplex<f32>>) -> ()
}) {function_type = (tensor<4xf64>, tensor<4xui8>, tensor<4xi64>, tensor<4xi1>, tensor<4xi32>, tensor<4xcomplex<f64>>) -> (tensor<4xi32>, tensor<4xui16>, tensor<4xi1>, tensor<4xf16>, tensor<4xf64>, tensor<4xi16>, tensor<4xi8>, tensor<4xf32>, tensor<4xui32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf32>, tensor<4xcomplex<f32>>), sym_name = "conversions"} : () -> ()

// -----
// Each family picks its op: float max propagates NaN (maximumf), fmax ignores a NaN second
// operand; integer min is signed or unsigned; bool max is or, bool + is or; integer negation
// is 0 - x; bool not is xor with true; >> is arithmetic for signed types; comparisons of
// unsigned ints are unsigned and float != is unordered (NaN != NaN).
// RUN: kernelize
// CHECK-LABEL: "kernel.generic"(%arg0, %arg1)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f32, [[Y:%arg[0-9]+]]: f32):
// CHECK-NEXT:    "arith.maximumf"([[X]], [[Y]])
// CHECK-LABEL: "kernel.generic"(%arg0, %arg1)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f32, [[Y:%arg[0-9]+]]: f32):
// CHECK-NEXT:    [[GT:%[0-9]+]] = "arith.cmpf"([[X]], [[Y]]) {predicate = "ogt"}
// CHECK-NEXT:    [[NAN:%[0-9]+]] = "arith.cmpf"([[Y]], [[Y]]) {predicate = "uno"}
// CHECK-NEXT:    [[TAKE:%[0-9]+]] = "arith.ori"([[GT]], [[NAN]])
// CHECK-NEXT:    "arith.select"([[TAKE]], [[X]], [[Y]])
// CHECK-LABEL: "kernel.generic"(%arg2)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.minsi"
// CHECK-LABEL: "kernel.generic"(%arg3)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.minui"
// CHECK-LABEL: "kernel.generic"(%arg4)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.ori"
// CHECK-LABEL: "kernel.generic"(%arg4)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.ori"
// CHECK-LABEL: "kernel.generic"(%arg2)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: i8):
// CHECK-NEXT:    [[Z:%[0-9]+]] = "arith.constant"() {value = 0 : i8}
// CHECK-NEXT:    "arith.subi"([[Z]], [[X]])
// CHECK-LABEL: "kernel.generic"(%arg4)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: i1):
// CHECK-NEXT:    [[T:%[0-9]+]] = "arith.constant"() {value = true : i1}
// CHECK-NEXT:    "arith.xori"([[X]], [[T]])
// CHECK-LABEL: "kernel.generic"(%arg2)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.shrsi"
// CHECK-LABEL: "kernel.generic"(%arg3)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.shrui"
// CHECK-LABEL: "kernel.generic"(%arg3)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.cmpi"({{.*}}) {predicate = "ult"}
// CHECK-LABEL: "kernel.generic"(%arg0, %arg1)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    "arith.cmpf"({{.*}}) {predicate = "une"}
"func.func"() ({
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xi8>, %arg3: tensor<4xui8>, %arg4: tensor<4xi1>):
  %0 = "array.max"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "array.fmax"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "array.min"(%arg2, %arg2) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %3 = "array.min"(%arg3, %arg3) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %4 = "array.max"(%arg4, %arg4) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = "array.add"(%arg4, %arg4) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = "array.neg"(%arg2) : (tensor<4xi8>) -> tensor<4xi8>
  %7 = "array.not"(%arg4) : (tensor<4xi1>) -> tensor<4xi1>
  %8 = "array.shr"(%arg2, %arg2) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %9 = "array.shr"(%arg3, %arg3) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %10 = "array.lt"(%arg3, %arg3) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %11 = "array.ne"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  "func.return"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11) : (tensor<4xf32>, tensor<4xf32>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>, tensor<4xi8>, tensor<4xi1>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>) -> ()
}) {function_type = (tensor<4xf32>, tensor<4xf32>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>, tensor<4xi8>, tensor<4xi1>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>), sym_name = "op_per_family"} : () -> ()

// -----
// signbit reads the sign bit itself: a bit cast to the integer of the float's width and a signed
// compare with 0, so -0.0 and -nan count (a float compare would see neither).
// RUN: kernelize
// CHECK-LABEL: "kernel.generic"(%arg0)
// CHECK-NEXT:  ^bb0([[X:%arg[0-9]+]]: f64):
// CHECK-NEXT:    [[B:%[0-9]+]] = "arith.bitcast"([[X]]) : (f64) -> i64
// CHECK-NEXT:    [[Z:%[0-9]+]] = "arith.constant"() {value = 0 : i64}
// CHECK-NEXT:    [[R:%[0-9]+]] = "arith.cmpi"([[B]], [[Z]]) {predicate = "slt"}
// CHECK-NEXT:    "kernel.yield"([[R]])
"func.func"() ({
^bb0(%arg0: tensor<4xf64>):
  %0 = "array.signbit"(%arg0) : (tensor<4xf64>) -> tensor<4xi1>
  "func.return"(%0) : (tensor<4xi1>) -> ()
}) {function_type = (tensor<4xf64>) -> (tensor<4xi1>), sym_name = "signbit"} : () -> ()
