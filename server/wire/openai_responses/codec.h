#pragma once
// The openai_responses wire's codec. See server/wire/codec.h for the contract each function keeps.

#include "server/wire/codec.h"

namespace sluice::wire::openai_responses {

#include "server/wire/codec_functions.inl"

}  // namespace sluice::wire::openai_responses
