# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "dlc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.environment["FILECHECK_OPTS"] = "--enable-var-scope --allow-unused-prefixes=false"
# Tests never touch the user's kernel cache, and run on the CPU emulation.
config.environment["DLC_CACHE_DIR"] = os.path.join(config.test_exec_root, "kernel-cache")
config.substitutions.append(("%dlc_src", config.dlc_src_root))
config.substitutions.append(("%examples", os.path.join(config.dlc_src_root, "examples")))
# Under ASan and UBSan (scripts/test-sanitizers.sh) the loops over damaged
# files take a first slice: the main build runs them whole, and the
# libFuzzer targets read the same formats under the sanitizers.
sanitized = config.dlc_sanitizers.upper() in ("ON", "1", "TRUE", "YES")
config.substitutions.append(("%{mutants}", "60" if sanitized else "300"))

llvm_config.with_system_environment(["HOME", "TMPDIR", "PATH"])
llvm_config.use_default_substitutions()

tool_dirs = [config.dlc_tools_dir, config.llvm_tools_dir]
from lit.llvm.subst import ToolSubst
# `dlc` is also a value of --emit (--emit=dlc): do not substitute it after '='.
tools = ["dlc-opt", "dlc-run", "dlc-fuzz", ToolSubst("dlc", pre=r".-^/\\<="), "FileCheck", "not", "count", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
