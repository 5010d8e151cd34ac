//===- ReferenceSafetyTest.cpp - Hostile reference models -----------------===//
//
// A package's reference model is untrusted: dlc::runReference reads and
// evaluates it in a child process under limits, and parseReferenceModel
// reads it in a child before it reads it in the caller's context
// (api/ReferenceModel.cpp, runtime/Sandbox.h). Every damaged copy of a
// real reference model must come back as an error or as outputs, never
// take the caller down; the lit test tools/reference-corrupt.test runs
// mutants through `dlc run --check`.
//
//===----------------------------------------------------------------------===//

#include "api/Compiler.h"
#include "dlc/dlc.h"
#include "ir/Dialect.h"
#include "ir/Limits.h"
#include "runtime/Sanitizers.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

using dlc::rt::HostTensor;
using dlc::rt::Package;
using dlc::rt::Result;
using ::testing::HasSubstr;

namespace {

const char *kModel = R"(
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = "tosa.const"() <{value = dense_resource<s> : tensor<1x8xf32>}> : () -> tensor<1x8xf32>
  %y = tosa.mul %x, %s {shift = 0 : i8} : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %e = tosa.exp %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %q = tosa.reciprocal %r : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %o = tosa.mul %e, %q {shift = 0 : i8} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}
{-#
  dialect_resources: {
    builtin: {
      s: "0x040000000000003F0000A0BF000000400000003E000040BF0000C03F00004040000020C0"
    }
  }
#-}
)";

Result<Package> compileModel() {
  dlc::CompileOptions options;
  options.compileCubins = false;
  return dlc::compile(kModel, options, "model.mlir");
}

/// Runs `fn` on a thread with a stack of `bytes` (MLIR's bytecode writer
/// recurses once per level of a location).
void onBigStack(size_t bytes, const std::function<void()> &fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t thread;
  auto *job = new std::function<void()>(fn);
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void *arg) -> void * {
                  auto *f = static_cast<std::function<void()> *>(arg);
                  (*f)();
                  delete f;
                  return nullptr;
                },
                job),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

/// Bytecode of `main` (x -> exp x) whose op has a call-site location
/// `depth` frames deep, as a dlc without the nesting limit wrote it.
std::string deepReference(int depth) {
  mlir::DialectRegistry registry;
  dlc::registerDlcDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::OpBuilder b(&context);
  mlir::Location loc = mlir::FileLineColLoc::get(&context, "a.py", 1, 1);
  for (int i = 0; i < depth; ++i)
    loc = mlir::CallSiteLoc::get(
        mlir::NameLoc::get(b.getStringAttr("f" + std::to_string(i))), loc);
  auto module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module.getBody());
  auto type = mlir::RankedTensorType::get({4, 8}, b.getF32Type());
  auto func = b.create<mlir::func::FuncOp>(b.getUnknownLoc(), "main",
                                           b.getFunctionType(type, type));
  b.setInsertionPointToEnd(func.addEntryBlock());
  mlir::Value y =
      b.create<mlir::dlc::ExpOp>(loc, type, func.getArgument(0)).getResult();
  b.create<mlir::func::ReturnOp>(b.getUnknownLoc(), y);
  std::string bytecode;
  onBigStack(size_t(1) << 30, [&] {
    llvm::raw_string_ostream os(bytecode);
    EXPECT_TRUE(mlir::succeeded(mlir::writeBytecodeToFile(module, os)));
  });
  module->destroy();
  return bytecode;
}

/// MLIR bytecode's varint at `at`: its value and length (0: malformed).
std::pair<uint64_t, size_t> readVarint(const std::string &b, size_t at) {
  if (at >= b.size())
    return {0, 0};
  uint8_t first = uint8_t(b[at]);
  size_t n = first == 0 ? 9 : size_t(__builtin_ctz(first)) + 1;
  if (at + n > b.size())
    return {0, 0};
  if (n == 9) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t(uint8_t(b[at + 1 + i])) << (8 * i);
    return {v, 9};
  }
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= uint64_t(uint8_t(b[at + i])) << (8 * i);
  return {v >> n, n};
}

std::string varint(uint64_t v) {
  std::string out;
  for (size_t n = 1; n <= 8; ++n)
    if (v < (uint64_t(1) << (7 * n))) {
      uint64_t e = (v << n) | (uint64_t(1) << (n - 1));
      for (size_t i = 0; i < n; ++i)
        out.push_back(char((e >> (8 * i)) & 0xff));
      return out;
    }
  out.push_back('\0');
  for (int i = 0; i < 8; ++i)
    out.push_back(char((v >> (8 * i)) & 0xff));
  return out;
}

/// `bytecode` with the count of its string section made 2^40: MLIR 19's
/// reader then aborts ("SmallVector unable to grow"). Empty if the
/// sections are not as expected (no aligned section before the strings).
std::string hugeStringCount(const std::string &bytecode) {
  auto [version, n] = readVarint(bytecode, 4);
  size_t at = bytecode.find('\0', 4 + n);
  if (n == 0 || at == std::string::npos)
    return {};
  ++at;
  while (at < bytecode.size()) {
    uint8_t id = uint8_t(bytecode[at]);
    auto [length, lengthBytes] = readVarint(bytecode, at + 1);
    if (lengthBytes == 0 || (id & 0x80))
      return {};
    size_t body = at + 1 + lengthBytes;
    if ((id & 0x7f) == 0) {
      auto [count, countBytes] = readVarint(bytecode, body);
      if (countBytes == 0)
        return {};
      std::string huge = varint(uint64_t(1) << 40);
      return bytecode.substr(0, at + 1) +
             varint(length - countBytes + huge.size()) + huge +
             bytecode.substr(body + countBytes);
    }
    at = body + length;
  }
  return {};
}

} // namespace

TEST(ReferenceSafety, DamagedBytecodeIsAnError) {
  Result<Package> p = compileModel();
  ASSERT_TRUE(p.isOk()) << p.message();
  std::vector<HostTensor> inputs = dlc::randomInputs(*p, 1);
  auto good = dlc::runReference(*p, inputs);
  ASSERT_TRUE(good.isOk()) << good.message();
  const std::string model = p->referenceIR;
  ASSERT_GT(model.size(), 100u);

  // Every truncation, and every byte set to 0xff and flipped: about 3 x
  // the model's size of copies.
  std::vector<std::string> mutants;
  for (size_t n = 0; n < model.size(); ++n)
    mutants.push_back(model.substr(0, n));
  for (size_t at = 0; at < model.size(); ++at)
    for (int value : {0xff, -1}) {
      std::string m = model;
      m[at] = char(value < 0 ? ~uint8_t(m[at]) : value);
      if (m != model)
        mutants.push_back(m);
    }
    // Under ASan every fourth (each check forks children of an instrumented
    // process: two minutes for all of them); the main build checks all.
#ifdef DLC_ASAN
  constexpr size_t kStride = 4;
#else
  constexpr size_t kStride = 1;
#endif
  int errors = 0, crashes = 0, checked = 0;
  std::string crasher;
  for (size_t i = 0; i < mutants.size(); i += kStride) {
    const std::string &m = mutants[i];
    ++checked;
    Package mutant = *p;
    mutant.referenceIR = m;
    auto r = dlc::runReference(mutant, inputs);
    if (r.isOk()) {
      // Outputs of the package's types (runReference checks them).
      ASSERT_EQ(r->size(), 1u);
      EXPECT_EQ((*r)[0].shape, (std::vector<int64_t>{4, 8}));
      continue;
    }
    ++errors;
    EXPECT_FALSE(r.message().empty());
    if (r.message().find("MLIR's bytecode reader") != std::string::npos) {
      EXPECT_THAT(r.message(), HasSubstr("the package's reference model is "
                                         "corrupt (MLIR's bytecode reader "));
      ++crashes;
      crasher = m;
    }
  }
  EXPECT_GT(errors, checked / 2);
  // MLIR 19's reader crashes on some of them: each is an error here.
  std::printf("%d of %zu mutants: %d errors, %d crashes of MLIR's bytecode "
              "reader\n",
              checked, mutants.size(), errors, crashes);

  // One that makes it abort for certain.
  Package aborts = *p;
  aborts.referenceIR = hugeStringCount(model);
  ASSERT_FALSE(aborts.referenceIR.empty());
  auto r = dlc::runReference(aborts, inputs);
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(),
              HasSubstr("the package's reference model is corrupt (MLIR's "
                        "bytecode reader crashed with signal 6, SIGABRT: LLVM "
                        "ERROR: SmallVector unable to grow."));
  if (crasher.empty())
    crasher = aborts.referenceIR;

  // parseReferenceModel reads bytecode in a child too.
  if (!crasher.empty()) {
    Package mutant = *p;
    mutant.referenceIR = crasher;
    mlir::DialectRegistry registry;
    dlc::registerDlcDialects(registry);
    mlir::MLIRContext context(registry);
    dlc::DiagnosticCollector diagnostics(context);
    llvm::SourceMgr sourceMgr;
    EXPECT_FALSE(dlc::parseReferenceModel(mutant, sourceMgr, context));
    EXPECT_THAT(diagnostics.text,
                HasSubstr("corrupt (MLIR's bytecode reader "));
  }
}

TEST(ReferenceSafety, DeepLocationsAreRefusedByName) {
  Result<Package> p = compileModel();
  ASSERT_TRUE(p.isOk()) << p.message();
  Package deep = *p;
  deep.referenceBlobs.clear();
  // Room for a 100,000-frame model in the size the package allows its
  // reference model.
  deep.constants.resize(size_t(4) << 20);
  std::vector<HostTensor> inputs = dlc::randomInputs(deep, 1);
  // 10,000 frames overflowed the reader's stack, 100,000 the writer's: the
  // child's big stack reads them, and the nesting limit refuses them.
  for (int depth : {300, 10000, 100000}) {
    deep.referenceIR = deepReference(depth);
    auto r = dlc::runReference(deep, inputs);
    ASSERT_FALSE(r.isOk()) << depth;
    EXPECT_THAT(r.message(),
                HasSubstr("a.py:1:1: error: 'dlc.exp' op has a location nested "
                          "more than 256 levels deep; dlc reads models nested "
                          "at most 256 levels deep"));
  }
  // Within the limit, it evaluates.
  deep.referenceIR = deepReference(200);
  auto r = dlc::runReference(deep, inputs);
  ASSERT_TRUE(r.isOk()) << r.message();
}

TEST(ReferenceSafety, WrittenLocationsAreCut) {
  // A model 200 frames deep compiles; its reference model keeps 64 levels.
  std::string model = "#loc0 = loc(\"a.py\":1:1)\n";
  for (int i = 1; i <= 200; ++i)
    model += "#loc" + std::to_string(i) + " = loc(callsite(\"f" +
             std::to_string(i) + "\" at #loc" + std::to_string(i - 1) + "))\n";
  model += "func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
           "  %y = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32> "
           "loc(#loc200)\n"
           "  return %y : tensor<4x8xf32>\n}\n";
  dlc::CompileOptions options;
  options.compileCubins = false;
  Result<Package> p = dlc::compile(model, options, "deep.mlir");
  ASSERT_TRUE(p.isOk()) << p.message();
  mlir::DialectRegistry registry;
  dlc::registerDlcDialects(registry);
  mlir::MLIRContext context(registry);
  dlc::DiagnosticCollector diagnostics(context);
  llvm::SourceMgr sourceMgr;
  auto module = dlc::parseReferenceModel(*p, sourceMgr, context);
  ASSERT_TRUE(module) << diagnostics.text;
  unsigned deepest = 0;
  module->walk([&](mlir::Operation *op) {
    deepest = std::max(deepest, mlir::dlc::locationDepth(op->getLoc(), 1000));
  });
  EXPECT_LE(deepest, mlir::dlc::kReferenceLocationDepth);
  EXPECT_GE(deepest, mlir::dlc::kReferenceLocationDepth - 4);
  auto r = dlc::runReference(*p, dlc::randomInputs(*p, 2));
  EXPECT_TRUE(r.isOk()) << r.message();
}

TEST(ReferenceSafety, ThreadsCheckAtOnce) {
  // Several threads fork at once while another compiles (MLIR at work in
  // the parent when a child is made): every check gives the same outputs.
  Result<Package> p = compileModel();
  ASSERT_TRUE(p.isOk()) << p.message();
  std::vector<HostTensor> inputs = dlc::randomInputs(*p, 3);
  auto expected = dlc::runReference(*p, inputs);
  ASSERT_TRUE(expected.isOk()) << expected.message();
  std::atomic<int> bad{0};
  std::atomic<bool> done{false};
  std::thread compiler([&] {
    while (!done.load())
      if (!compileModel().isOk())
        ++bad;
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 8; ++i) {
        auto r = dlc::runReference(*p, inputs);
        if (!r.isOk() || (*r)[0].data != (*expected)[0].data)
          ++bad;
      }
    });
  for (std::thread &t : threads)
    t.join();
  done.store(true);
  compiler.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(ReferenceSafety, BytecodeModelsNestedTooDeep) {
  // Bytecode nests regions without brackets: 300 modules inside each other
  // are refused by name after MLIR's reader (which reads regions without
  // recursion), before anything recurses over them.
  mlir::MLIRContext context;
  mlir::OpBuilder b(&context);
  auto top = mlir::ModuleOp::create(b.getUnknownLoc());
  mlir::ModuleOp inner = top;
  for (int i = 0; i < 300; ++i) {
    b.setInsertionPointToEnd(inner.getBody());
    inner = b.create<mlir::ModuleOp>(b.getUnknownLoc());
  }
  std::string bytecode;
  onBigStack(size_t(256) << 20, [&] {
    llvm::raw_string_ostream os(bytecode);
    EXPECT_TRUE(mlir::succeeded(mlir::writeBytecodeToFile(top, os)));
  });
  top->destroy();
  dlc::CompileOptions options;
  options.compileCubins = false;
  Result<Package> p = dlc::compile(bytecode, options, "nested.mlirbc");
  ASSERT_FALSE(p.isOk());
  EXPECT_THAT(p.message(),
              HasSubstr("'builtin.module' op is nested more than 256 levels "
                        "deep in regions; dlc reads models nested at most 256 "
                        "levels deep"));
}
