#pragma once
// The hooks of addIdleHook() (server/net/fiber.h), run by every worker before it waits.

namespace sluice::net::fiber {

// Calls every hook added so far, in the order added. Lock-free; called on worker threads.
void runIdleHooks();

}  // namespace sluice::net::fiber
