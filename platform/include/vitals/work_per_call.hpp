// The work of one call, in one type that the Timer, the results and the machine's
// roofline share.
#pragma once

namespace vitals {

// The work one call does, when stated: throughput and the roofline are computed from it.
// Zero means "not stated".
struct WorkPerCall {
    double bytes = 0;  // read plus written
    double flops = 0;  // floating-point operations (an FMA is 2)
    double items = 0;  // whatever the caller counts (elements, rows, requests)
    double working_set = 0;  // bytes touched, for the cache level it fits in (default: bytes)
    bool f64 = false;        // the flops are double precision
    bool stated() const { return bytes > 0 || flops > 0 || items > 0; }
    friend bool operator==(const WorkPerCall&, const WorkPerCall&) = default;
};

}  // namespace vitals
