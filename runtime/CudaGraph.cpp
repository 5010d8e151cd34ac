//===- CudaGraph.cpp - Runs captured into a CUDA Graph and replayed -------===//
//
// Replaying a graph costs one launch instead of one per step. A graph bakes
// in the pointers of the run it captured, so it is captured again when a
// run's inputs or outputs move (runOnDevice on other buffers).
//
//===----------------------------------------------------------------------===//

#include "runtime/CudaDevice.h"

namespace dlc::rt {

Status CudaGraph::execute(CudaContext &ctx, bool useGraph,
                          const std::vector<CUdeviceptr> &pointers,
                          const std::function<Status()> &enqueueSteps) {
  const CudaDriver *cu = ctx.cu;
  if (!useGraph || runs_ == 0) {
    DLC_RT_RETURN_IF_ERROR(enqueueSteps());
    ++runs_;
    return Status::ok();
  }
  if (!graph_ || pointers != graphPointers_) {
    if (graph_) {
      cu->cuGraphExecDestroy(graph_);
      graph_ = nullptr;
    }
    DLC_RT_RETURN_IF_ERROR(ctx.check(
        cu->cuStreamBeginCapture(ctx.stream, CU_STREAM_CAPTURE_MODE_RELAXED),
        "cuStreamBeginCapture"));
    Status enqueued = enqueueSteps();
    CUgraph graph = nullptr;
    CUresult ended = cu->cuStreamEndCapture(ctx.stream, &graph);
    if (!enqueued.isOk()) {
      if (graph)
        cu->cuGraphDestroy(graph);
      return enqueued;
    }
    DLC_RT_RETURN_IF_ERROR(ctx.check(ended, "cuStreamEndCapture"));
    CUresult r = cu->cuGraphInstantiate(&graph_, graph, 0);
    cu->cuGraphDestroy(graph);
    if (r != CUDA_SUCCESS) {
      graph_ = nullptr;
      return ctx.check(r, "cuGraphInstantiate");
    }
    graphPointers_ = pointers;
  }
  DLC_RT_RETURN_IF_ERROR(
      ctx.check(cu->cuGraphLaunch(graph_, ctx.stream), "cuGraphLaunch"));
  ++runs_;
  return Status::ok();
}

bool CudaGraph::pending(const std::vector<CUdeviceptr> &pointers) const {
  return runs_ == 0 || !graph_ || pointers != graphPointers_;
}

void CudaGraph::release(const CudaDriver *cu) {
  if (graph_)
    cu->cuGraphExecDestroy(graph_);
  graph_ = nullptr;
}

} // namespace dlc::rt
