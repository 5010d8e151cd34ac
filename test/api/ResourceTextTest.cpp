//===- ResourceTextTest.cpp - Weights found in MLIR text before parsing ---===//

#include "ir/Parse.h"

#include <gtest/gtest.h>

using mlir::dlc::findResourceBlobs;
using mlir::dlc::TextResourceBlob;

namespace {

const char *kOps = "func.func @main() {\n  return\n}\n";

TEST(ResourceText, FindsEveryBuiltinBlob) {
  std::string text = std::string(kOps) + "{-#\n  dialect_resources: {\n"
                                         "    builtin: {\n"
                                         "      w: \"0x0400000001020304\",\n"
                                         "      b_1.x: \"0x08000000\"\n"
                                         "    }\n  }\n#-}\n";
  auto blobs = findResourceBlobs(text);
  ASSERT_TRUE(blobs.has_value());
  ASSERT_EQ(blobs->size(), 2u);
  const TextResourceBlob &w = (*blobs)[0];
  EXPECT_EQ(w.key, "w");
  EXPECT_EQ(w.alignment, 4u);
  EXPECT_EQ(text.substr(w.digits, w.digitsEnd - w.digits), "01020304");
  const TextResourceBlob &b = (*blobs)[1];
  EXPECT_EQ(b.key, "b_1.x");
  EXPECT_EQ(b.alignment, 8u);
  EXPECT_EQ(b.digits, b.digitsEnd);
  // No metadata, or none with resources: nothing to do.
  EXPECT_FALSE(findResourceBlobs(kOps).has_value());
  auto empty = findResourceBlobs(std::string(kOps) +
                                 "{-# dialect_resources: { builtin: { } } #-}");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

TEST(ResourceText, LeavesOtherFormsToMlir) {
  auto with = [](const std::string &metadata) {
    return findResourceBlobs(std::string(kOps) + metadata);
  };
  // Well-formed, for comparison; an odd number of digits is not.
  EXPECT_TRUE(with("{-# dialect_resources: { builtin: { w: \"0x04000000ABCD\" "
                   "} } #-}")
                  .has_value());
  EXPECT_FALSE(with("{-# dialect_resources: { builtin: { w: \"0x04000000ABC\" "
                    "} } #-}")
                   .has_value());
  // A digit that is not hex, an alignment that is not a power of 2, a
  // quoted key, another dialect's resources, another metadata entry, text
  // after the metadata, an unterminated blob.
  for (const char *metadata : {
           "{-# dialect_resources: { builtin: { w: \"0x04000000ABCG\" } } #-}",
           "{-# dialect_resources: { builtin: { w: \"0x03000000ABCD\" } } #-}",
           "{-# dialect_resources: { builtin: { \"w\": \"0x04000000ABCD\" } } "
           "#-}",
           "{-# dialect_resources: { builtin: { w: \"0x04000000ABCD\" }, "
           "other: { x: \"0x04000000\" } } #-}",
           "{-# dialect_resources: { builtin: { w: \"0x04000000ABCD\" } }, "
           "external_resources: { } #-}",
           "{-# dialect_resources: { builtin: { w: \"0x04000000ABCD\" } } "
           "#-}\nfunc.func @g() { return }",
           "{-# dialect_resources: { builtin: { w: \"0x04000000ABCD } } #-}",
           "{-# external_resources: { } #-}",
       })
    EXPECT_FALSE(with(metadata).has_value()) << metadata;
  // Comments are white space.
  EXPECT_TRUE(with("{-# dialect_resources: { // weights\n builtin: { w: "
                   "\"0x04000000ABCD\" } } #-}\n// end\n")
                  .has_value());
}

} // namespace
