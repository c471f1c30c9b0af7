// The kernel set: tensors, operations, the MLP and the MASK INDICES workload.
#pragma once

#include "vitals/kernels/allocator.hpp"
#include "vitals/kernels/cuda_context.hpp"
#include "vitals/kernels/mask_indices.hpp"
#include "vitals/kernels/mlp.hpp"
#include "vitals/kernels/op_hooks.hpp"
#include "vitals/kernels/ops.hpp"
#include "vitals/kernels/tensor.hpp"
