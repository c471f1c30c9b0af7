// The CUPTI activity records vitals reads, chosen by the CUPTI headers' version, and
// their conversion into DeviceEvents. Internal to vitals::cuda.
//
// CUPTI writes each record in the newest layout its version defines, so the struct we
// read through must be the newest one the headers we build against know: CUDA 13.2 adds
// CUpti_ActivityKernel11, 13.0 CUpti_ActivityKernel10, 12.8 CUpti_ActivityMemcpy6; 12.0
// to 12.9 write CUpti_ActivityKernel9, 11.8 CUpti_ActivityKernel8. The fields read here
// (ids, times, grid, block, bytes) sit at the same place in all of them.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <unordered_map>

#include "vitals/profiler/trace.hpp"

// The version the choice follows: the headers' own unless given (a compile test checks
// each branch against the older structs, which newer headers keep as deprecated).
#ifndef VITALS_CUPTI_API_VERSION
#define VITALS_CUPTI_API_VERSION CUPTI_API_VERSION
#endif

#if VITALS_CUPTI_API_VERSION < 18
#error "vitals needs CUPTI from CUDA 11.8 or newer (CUPTI_API_VERSION 18)"
#endif

namespace vitals::cuda_parts {

// CUPTI_API_VERSION counts 18 (11.8), 19 (12.0) ... 28 (12.9 Update 1), then xxyyzz from
// CUDA 13.0 (130000).
#if VITALS_CUPTI_API_VERSION >= 130200
using KernelRecord = CUpti_ActivityKernel11;
#elif VITALS_CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#elif VITALS_CUPTI_API_VERSION >= 19
using KernelRecord = CUpti_ActivityKernel9;
#else
using KernelRecord = CUpti_ActivityKernel8;
#endif

#if VITALS_CUPTI_API_VERSION >= 26
using MemcpyRecord = CUpti_ActivityMemcpy6;
#else
using MemcpyRecord = CUpti_ActivityMemcpy5;
#endif

using MemsetRecord = CUpti_ActivityMemset4;

// Correlation id of a CUDA call -> the host op's external id.
using ExternalIds = std::unordered_map<std::uint32_t, std::uint64_t>;

// One record as a DeviceEvent with times on the steady clock (CUPTI's nanoseconds plus
// cupti_to_steady_ns). Runtime records keep CUPTI's thread id: the system's (gettid), as
// cupti_start() asks for, like the CPU events. Returns false for a record that is no
// event: an external correlation (stored into external_ids) or a kind not read here.
bool to_device_event(const CUpti_Activity& record, std::int64_t cupti_to_steady_ns, ExternalIds& external_ids,
                     profiler::DeviceEvent& out);

}  // namespace vitals::cuda_parts
