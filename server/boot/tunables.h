#pragma once
// glibc settings that decide how much memory stays resident after a burst.

namespace sluice::boot {

// Starts the gateway again once (execv of /proc/self/exe with `argv`) with GLIBC_TUNABLES that
// turn off glibc's cache of exited threads' stacks and give one malloc arena per core, each only
// unless the operator set it; returns without doing anything when already restarted, when
// SLUICE_KEEP_STACK_CACHE is set, or when the exec fails (the process then runs with glibc's
// defaults). Call first thing in main(), before any thread starts.
void restartWithTunables(char** argv);

}  // namespace sluice::boot
