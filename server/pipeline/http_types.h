#pragma once
// The front end's types the pipeline works with (the request, the response it answers on, the
// gateway's shared parts), named in the pipeline's namespace.

#include "server/http/body_budget.h"
#include "server/http/endpoint_states.h"
#include "server/http/request.h"

namespace sluice::http {
class Gateway;
class Request;
class ServerResponse;
struct ServerOptions;
}  // namespace sluice::http

namespace sluice::pipeline {
using http::BodyBudget;
using http::BodyTooLarge;
using http::EndpointStates;
using http::Gateway;
using http::HangUpGuard;
using http::Request;
using http::ServerOptions;
using http::ServerResponse;
}  // namespace sluice::pipeline
