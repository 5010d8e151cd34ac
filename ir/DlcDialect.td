//===- DlcDialect.td - The dlc dialect ---------------------*- tablegen -*-===//
#ifndef DLC_DIALECT_TD
#define DLC_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Dlc_Dialect : Dialect {
  let name = "dlc";
  let summary = "Tensor-level IR of the dlc deep-learning compiler";
  let description = [{
    The `dlc` dialect describes a model as a graph of tensor operations with
    value semantics and static shapes. Operations are few and orthogonal so
    that each one gets a single gradient rule, a single reference semantics
    and a single code-generation rule:

    * elementwise unary and binary operations with NumPy-style broadcasting
      between operands of equal rank (a dimension of size 1 stretches);
    * explicit `dlc.cast` for every change of element type;
    * `dlc.reduce` (keeps reduced dimensions as size 1) and `dlc.argmax`;
    * `dlc.matmul`, batched, with transposes folded into its attributes;
    * data movement: transpose, reshape, slice, concat, pad, tile;
    * `dlc.kernel`, a fused group of the above that becomes one GPU kernel.
  }];
  let cppNamespace = "::mlir::dlc";
  let useDefaultAttributePrinterParser = 0;
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

class Dlc_Op<string mnemonic, list<Trait> traits = []> :
    Op<Dlc_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Dlc_ElementType : AnyTypeOf<[F32, F16, BF16, I32, I64, I1, F8E4M3FN],
    "f32, f16, bf16, i32, i64, i1 or f8E4M3FN">;
def Dlc_FloatType : AnyTypeOf<[F32, F16, BF16], "f32, f16 or bf16">;
// f8E4M3FN is a storage type: the operands of FP8 matrix products
// (--precision=fp8) and the casts that make them.
def Dlc_Tensor : StaticShapeTensorOf<[F32, F16, BF16, I32, I64, I1, F8E4M3FN]>;
def Dlc_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Dlc_BoolTensor : StaticShapeTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Dlc_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"prod", 3>]> {
  let cppNamespace = "::mlir::dlc";
}

def Dlc_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::dlc";
}

#endif // DLC_DIALECT_TD
