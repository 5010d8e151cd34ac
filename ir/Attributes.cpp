//===- Attributes.cpp - The dlc dialect's discardable attributes ----------===//
#include "ir/Attributes.h"
#include "ir/Dialect.h"
#include "ir/ElementType.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::dlc;

std::optional<ArrayRef<int64_t>> mlir::dlc::getPlannedOffsets(Operation *op) {
  if (auto offsets = op->getAttrOfType<DenseI64ArrayAttr>(attr::kOffsets))
    return offsets.asArrayRef();
  return std::nullopt;
}

void mlir::dlc::setPlannedOffsets(Operation *op, ArrayRef<int64_t> offsets) {
  op->setAttr(attr::kOffsets,
              DenseI64ArrayAttr::get(op->getContext(), offsets));
}

static std::optional<int64_t> getInt(Operation *op, StringRef name) {
  if (auto value = op->getAttrOfType<IntegerAttr>(name))
    return value.getInt();
  return std::nullopt;
}

static void setInt(Operation *op, StringRef name, int64_t value) {
  op->setAttr(name, Builder(op->getContext()).getI64IntegerAttr(value));
}

std::optional<int64_t> mlir::dlc::getArenaBytes(Operation *func) {
  return getInt(func, attr::kArenaBytes);
}
void mlir::dlc::setArenaBytes(Operation *func, int64_t bytes) {
  setInt(func, attr::kArenaBytes, bytes);
}
std::optional<int64_t> mlir::dlc::getArenaLowerBound(Operation *func) {
  return getInt(func, attr::kArenaLowerBound);
}
void mlir::dlc::setArenaLowerBound(Operation *func, int64_t bytes) {
  setInt(func, attr::kArenaLowerBound, bytes);
}
int64_t mlir::dlc::residentBytes(FunctionOpInterface func) {
  auto bytes = [](Type t) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.hasStaticShape() ? tensorBytes(tensor) : 0;
  };
  int64_t total = 0;
  for (Type t : func.getArgumentTypes())
    total += bytes(t);
  for (Type t : func.getResultTypes())
    total += bytes(t);
  // Constants outside kernels, but for splats that only kernels (or ops
  // that fusion puts in kernels) read: those become literals.
  for (Operation &op : func.getFunctionBody().getOps()) {
    auto c = dyn_cast<ConstantOp>(op);
    if (!c)
      continue;
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    bool literal = dense && dense.isSplat() &&
                   llvm::all_of(c->getUsers(), [](Operation *user) {
                     return isa<KernelOp>(user) || isKernelBodyOp(user);
                   });
    if (!literal)
      total += bytes(c.getType());
  }
  return total;
}

bool mlir::dlc::isFromConv(Operation *matmul) {
  return matmul->hasAttr(attr::kFromConv);
}
void mlir::dlc::setFromConv(Operation *matmul) {
  matmul->setAttr(attr::kFromConv, UnitAttr::get(matmul->getContext()));
}
std::optional<int64_t> mlir::dlc::getIntermediateBytes(Operation *func) {
  return getInt(func, attr::kIntermediateBytes);
}
void mlir::dlc::setIntermediateBytes(Operation *func, int64_t bytes) {
  setInt(func, attr::kIntermediateBytes, bytes);
}
std::optional<int64_t> mlir::dlc::getSourceOpCount(Operation *func) {
  return getInt(func, attr::kSourceOps);
}
void mlir::dlc::setSourceOpCount(Operation *func, int64_t count) {
  setInt(func, attr::kSourceOps, count);
}

bool mlir::dlc::isBufferView(Operation *op) {
  return isa_and_nonnull<ReshapeOp>(op) ||
         (isa_and_nonnull<SliceOp>(op) && op->hasAttr(attr::kView));
}

ArrayAttr mlir::dlc::getFusionNotes(Operation *kernel) {
  return kernel->getAttrOfType<ArrayAttr>(attr::kFusionNotes);
}
void mlir::dlc::setFusionNotes(Operation *kernel, ArrayAttr notes) {
  kernel->setAttr(attr::kFusionNotes, notes);
}
void mlir::dlc::removeFusionNotes(Operation *kernel) {
  kernel->removeAttr(attr::kFusionNotes);
}
void mlir::dlc::remapFusionNotes(Operation *kernel,
                                 ArrayRef<unsigned> operandMap,
                                 unsigned resultOffset,
                                 SmallVectorImpl<Attribute> &notes) {
  ArrayAttr array = getFusionNotes(kernel);
  if (!array)
    return;
  MLIRContext *context = kernel->getContext();
  Type i64 = IntegerType::get(context, 64);
  for (Attribute note : array) {
    auto dict = dyn_cast<DictionaryAttr>(note);
    if (!dict)
      continue;
    NamedAttrList entries(dict);
    if (auto operand = dict.getAs<IntegerAttr>("operand")) {
      uint64_t n = operand.getInt();
      if (n < operandMap.size()) {
        if (operandMap[n] == kDroppedOperand)
          continue;
        entries.set("operand", IntegerAttr::get(i64, operandMap[n]));
      }
    }
    if (auto result = dict.getAs<IntegerAttr>("result"))
      entries.set("result",
                  IntegerAttr::get(i64, result.getInt() + resultOffset));
    DictionaryAttr remapped = entries.getDictionary(context);
    // Kernels reading the same producer carry the same note once.
    if (!llvm::is_contained(notes, remapped))
      notes.push_back(remapped);
  }
}

std::optional<double> mlir::dlc::getAmax(Operation *op) {
  if (auto value = op->getAttrOfType<FloatAttr>(attr::kAmax))
    return value.getValueAsDouble();
  return std::nullopt;
}
void mlir::dlc::setAmax(Operation *op, double amax) {
  op->setAttr(attr::kAmax, Builder(op->getContext()).getF64FloatAttr(amax));
}

std::optional<double> mlir::dlc::getAmax(Value value) {
  if (auto result = dyn_cast<OpResult>(value))
    return result.getOwner()->getNumResults() == 1 ? getAmax(result.getOwner())
                                                   : std::nullopt;
  auto arg = cast<BlockArgument>(value);
  auto func =
      dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getFunctionBody().front())
    return std::nullopt;
  if (auto amax =
          func.getArgAttrOfType<FloatAttr>(arg.getArgNumber(), attr::kAmax))
    return amax.getValueAsDouble();
  return std::nullopt;
}
bool mlir::dlc::isCalibrated(Operation *func) {
  return func->hasAttr(attr::kCalibrated);
}
void mlir::dlc::setCalibrated(Operation *func) {
  func->setAttr(attr::kCalibrated, UnitAttr::get(func->getContext()));
}
bool mlir::dlc::keepsF32(Operation *op) {
  auto value = op->getAttrOfType<StringAttr>(attr::kPrecision);
  return value && value.getValue() == "f32";
}
void mlir::dlc::setKeepF32(Operation *op) {
  op->setAttr(attr::kPrecision, StringAttr::get(op->getContext(), "f32"));
}

bool mlir::dlc::isChannelsLast(Operation *conv) {
  return conv->hasAttr(attr::kChannelsLast);
}
void mlir::dlc::setChannelsLast(Operation *conv) {
  conv->setAttr(attr::kChannelsLast, UnitAttr::get(conv->getContext()));
}
ArrayAttr mlir::dlc::getLayoutChoices(Operation *func) {
  return func->getAttrOfType<ArrayAttr>(attr::kLayouts);
}
void mlir::dlc::setLayoutChoices(Operation *func, ArrayAttr choices) {
  func->setAttr(attr::kLayouts, choices);
}

/// A layout choice: {layout = "nhwc"|"nchw", convolutions = n : i64,
/// bytes_saved = b : i64, reason = "..."}.
static bool isLayoutChoice(Attribute choice) {
  auto dict = dyn_cast<DictionaryAttr>(choice);
  if (!dict || dict.size() != 4)
    return false;
  auto layout = dyn_cast_or_null<StringAttr>(dict.get("layout"));
  auto convs = dyn_cast_or_null<IntegerAttr>(dict.get("convolutions"));
  auto saved = dyn_cast_or_null<IntegerAttr>(dict.get("bytes_saved"));
  return layout &&
         (layout.getValue() == "nhwc" || layout.getValue() == "nchw") &&
         convs && convs.getInt() >= 0 && saved &&
         isa_and_nonnull<StringAttr>(dict.get("reason"));
}

/// A fusion note: {operand = i : i64, reason = "..."} or the same with
/// `result`.
static bool isFusionNote(Attribute note) {
  auto dict = dyn_cast<DictionaryAttr>(note);
  if (!dict || dict.size() != 2 ||
      !isa_and_nonnull<StringAttr>(dict.get("reason")))
    return false;
  auto index = dyn_cast_or_null<IntegerAttr>(dict.get("operand"));
  if (!index)
    index = dyn_cast_or_null<IntegerAttr>(dict.get("result"));
  return index && index.getInt() >= 0;
}

LogicalResult mlir::dlc::verifyDlcAttribute(Operation *op,
                                            NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  if (name == attr::kOffsets) {
    auto offsets = dyn_cast<DenseI64ArrayAttr>(value);
    if (!offsets)
      return op->emitOpError() << "expects '" << name
                               << "' to be an array<i64>, but got " << value;
    if (int64_t(offsets.size()) != int64_t(op->getNumResults()))
      return op->emitOpError()
             << "has " << offsets.size() << " planned offsets for "
             << op->getNumResults() << " results";
    for (int64_t offset : offsets.asArrayRef())
      if (offset < -1)
        return op->emitOpError() << "has an invalid planned offset " << offset;
    return success();
  }
  if (name == attr::kFromConv) {
    if (!isa<UnitAttr>(value) || !isa<MatmulOp>(op))
      return op->emitOpError()
             << "expects '" << name << "' as a unit attribute on a dlc.matmul";
    return success();
  }
  if (name == attr::kView) {
    // Where the block lies is the slice's own rule (SliceOp::verify): the
    // dialect's attributes are verified before the op's invariants, so its
    // start and sizes may be missing or of another rank here.
    if (!isa<UnitAttr>(value) || !isa<SliceOp>(op))
      return op->emitOpError()
             << "expects '" << name << "' as a unit attribute on a dlc.slice";
    return success();
  }
  if (name == attr::kChannelsLast) {
    if (!isa<UnitAttr>(value) || !isa<Conv2DOp>(op))
      return op->emitOpError()
             << "expects '" << name << "' as a unit attribute on a dlc.conv2d";
    return success();
  }
  if (name == attr::kLayouts) {
    auto choices = dyn_cast<ArrayAttr>(value);
    if (!isa<FunctionOpInterface>(op) || !choices ||
        !llvm::all_of(choices,
                      [](Attribute choice) { return isLayoutChoice(choice); }))
      return op->emitOpError()
             << "expects '" << name
             << "' on a function, as an array of {layout = \"nhwc\"|\"nchw\", "
                "convolutions = n, bytes_saved = b, reason = \"...\"}";
    return success();
  }
  if (name == attr::kRecompute) {
    if (!isa<UnitAttr>(value) || op->getNumResults() == 0)
      return op->emitOpError() << "expects '" << name
                               << "' as a unit attribute on an op with "
                                  "results";
    return success();
  }
  if (name == attr::kRecomputePlan) {
    if (!isa<FunctionOpInterface>(op) || !isa<StringAttr>(value))
      return op->emitOpError()
             << "expects '" << name << "' on a function, as a string";
    return success();
  }
  if (name == attr::kRecomputeFlops) {
    auto flops = dyn_cast<FloatAttr>(value);
    if (!isa<FunctionOpInterface>(op) || !flops ||
        !(flops.getValueAsDouble() >= 0))
      return op->emitOpError()
             << "expects '" << name << "' on a function, as a float >= 0";
    return success();
  }
  if (name == attr::kArenaBytes || name == attr::kIntermediateBytes ||
      name == attr::kSourceOps || name == attr::kArenaLowerBound ||
      name == attr::kActivationBytes) {
    auto integer = dyn_cast<IntegerAttr>(value);
    if (!integer || !integer.getType().isInteger(64))
      return op->emitOpError()
             << "expects '" << name << "' to be an i64, but got " << value;
    if (integer.getInt() < 0)
      return op->emitOpError()
             << "has a negative '" << name << "' (" << integer.getInt() << ")";
    return success();
  }
  if (name == attr::kFusionNotes) {
    auto notes = dyn_cast<ArrayAttr>(value);
    if (!isa<KernelOp>(op) || !notes ||
        !llvm::all_of(notes, [](Attribute note) { return isFusionNote(note); }))
      return op->emitOpError()
             << "expects '" << name
             << "' on a dlc.kernel, as an array of {operand|result = index, "
                "reason = \"...\"}";
    return success();
  }
  if (name == attr::kAmax) {
    auto amax = dyn_cast<FloatAttr>(value);
    if (!amax || !amax.getType().isF64() || op->getNumResults() != 1)
      return op->emitOpError()
             << "expects '" << name << "' as an f64 on an op of one result";
    double v = amax.getValueAsDouble();
    if (!(v >= 0))
      return op->emitOpError()
             << "has a '" << name << "' that is negative or NaN (" << v << ")";
    return success();
  }
  if (name == attr::kCalibrated) {
    if (!isa<UnitAttr>(value) || !isa<FunctionOpInterface>(op))
      return op->emitOpError()
             << "expects '" << name << "' as a unit attribute on a function";
    return success();
  }
  if (name == attr::kParam || name == attr::kBuffer) {
    auto param = dyn_cast<StringAttr>(value);
    // The op's own invariants are verified after this: a constant written
    // in the generic form may have no result.
    if (!isa<ConstantOp>(op) || !param || param.getValue().empty() ||
        op->getNumResults() != 1 || !isFloatElement(op->getResult(0).getType()))
      return op->emitOpError()
             << "expects '" << name << "' on a float dlc.constant, as the "
             << (name == attr::kParam ? "parameter" : "buffer") << "'s name";
    if (op->hasAttr(attr::kParam) && op->hasAttr(attr::kBuffer))
      return op->emitOpError() << "has both '" << attr::kParam << "' and '"
                               << attr::kBuffer << "'";
    return success();
  }
  if (name == attr::kMicroBatches) {
    auto count = dyn_cast<IntegerAttr>(value);
    if (!isa<FunctionOpInterface>(op) || !count ||
        !count.getType().isInteger(64) || count.getInt() < 2 ||
        count.getInt() > 65536)
      return op->emitOpError() << "expects '" << name
                               << "' on a function, as an i64 from 2 to 65536";
    return success();
  }
  if (name == attr::kPrecision) {
    auto precision = dyn_cast<StringAttr>(value);
    if (!precision || precision.getValue() != "f32")
      return op->emitOpError() << "expects '" << name
                               << "' to be \"f32\" (the only storage type an "
                                  "op can be pinned to), but got "
                               << value;
    return success();
  }
  return op->emitOpError() << "has an unknown dlc attribute '" << name << "'";
}

LogicalResult DlcDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  return verifyDlcAttribute(op, attribute);
}

StringRef mlir::dlc::persistentName(FunctionOpInterface func, unsigned arg) {
  for (StringRef name : {attr::kParam, attr::kState, attr::kBuffer})
    if (auto s = func.getArgAttrOfType<StringAttr>(arg, name))
      return s.getValue();
  return "";
}

LogicalResult mlir::dlc::verifyDlcArgAttribute(Operation *op, unsigned region,
                                               unsigned index,
                                               NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (name == attr::kParam || name == attr::kState || name == attr::kBuffer) {
    auto s = dyn_cast<StringAttr>(attribute.getValue());
    if (!func || !s || s.getValue().empty())
      return op->emitOpError()
             << "expects '" << name << "' on argument #" << index
             << " of a function, as a non-empty name";
    int kinds = bool(func.getArgAttr(index, attr::kParam)) +
                bool(func.getArgAttr(index, attr::kState)) +
                bool(func.getArgAttr(index, attr::kBuffer));
    if (kinds > 1)
      return op->emitOpError() << "has more than one of '" << attr::kParam
                               << "', '" << attr::kState << "' and '"
                               << attr::kBuffer << "' on argument #" << index;
    if (name == attr::kParam && !isFloatElement(func.getArgumentTypes()[index]))
      return op->emitOpError() << "expects the parameter argument #" << index
                               << " to be a float tensor";
    return success();
  }
  if (name == attr::kInitial) {
    auto value = dyn_cast<ElementsAttr>(attribute.getValue());
    if (!func || !value || value.getType() != func.getArgumentTypes()[index])
      return op->emitOpError()
             << "expects '" << name << "' on argument #" << index
             << " as elements of the argument's type";
    if (persistentName(func, index).empty())
      return op->emitOpError() << "has '" << name << "' on argument #" << index
                               << ", which is neither a parameter nor state";
    return success();
  }
  if (name != attr::kAmax)
    return op->emitOpError() << "has an unknown dlc argument attribute '"
                             << name << "' on argument #" << index;
  auto amax = dyn_cast<FloatAttr>(attribute.getValue());
  if (!amax || !amax.getType().isF64() || !(amax.getValueAsDouble() >= 0))
    return op->emitOpError()
           << "expects '" << name << "' on argument #" << index
           << " as an f64 >= 0, but got " << attribute.getValue();
  return success();
}

LogicalResult mlir::dlc::verifyDlcResultAttribute(Operation *op, unsigned index,
                                                  NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (name == attr::kBufferUpdate) {
    auto s = dyn_cast<StringAttr>(attribute.getValue());
    if (!func || !s || s.getValue().empty())
      return op->emitOpError() << "expects '" << name << "' on result #"
                               << index << " as the non-empty name of a buffer";
    return success();
  }
  if (name == attr::kStepSkipped) {
    auto type = func ? dyn_cast<RankedTensorType>(func.getResultTypes()[index])
                     : RankedTensorType();
    if (!isa<UnitAttr>(attribute.getValue()) || !type || type.getRank() != 0 ||
        !type.getElementType().isF32())
      return op->emitOpError()
             << "expects '" << name << "' on result #" << index
             << " as a unit attribute on a tensor<f32> result";
    return success();
  }
  if (name != attr::kGradientOf && name != attr::kUpdates)
    return op->emitOpError() << "has an unknown dlc result attribute '" << name
                             << "' on result #" << index;
  auto arg = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!func || !arg || !arg.getType().isInteger(64) || arg.getInt() < 0 ||
      arg.getInt() >= int64_t(func.getNumArguments()))
    return op->emitOpError()
           << "expects '" << name << "' on result #" << index
           << " as the i64 index of one of the function's arguments";
  unsigned n = unsigned(arg.getInt());
  if (func.getArgumentTypes()[n] != func.getResultTypes()[index])
    return op->emitOpError()
           << "has '" << name << "' on result #" << index << " of type "
           << func.getResultTypes()[index] << " for argument #" << n
           << " of type " << func.getArgumentTypes()[n];
  if (name == attr::kGradientOf && !func.getArgAttr(n, attr::kParam))
    return op->emitOpError()
           << "has '" << name << "' on result #" << index << " for argument #"
           << n << ", which is not a parameter";
  if (name == attr::kUpdates && persistentName(func, n).empty())
    return op->emitOpError()
           << "has '" << name << "' on result #" << index << " for argument #"
           << n << ", which is neither a parameter nor state";
  return success();
}

LogicalResult DlcDialect::verifyRegionResultAttribute(
    Operation *op, unsigned region, unsigned index, NamedAttribute attribute) {
  return verifyDlcResultAttribute(op, index, attribute);
}

LogicalResult DlcDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned region,
                                                   unsigned index,
                                                   NamedAttribute attribute) {
  return verifyDlcArgAttribute(op, region, index, attribute);
}
