#include "server/upstream/transport.h"

namespace sluice::upstream {

std::string_view toString(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::Connect: return "connect";
    case TransportFailure::Timeout: return "timeout";
    case TransportFailure::Reset: return "reset";
    case TransportFailure::Tls: return "tls";
    case TransportFailure::Protocol: return "protocol";
  }
  return "transport";
}

std::string Response::readAll() {
  std::string out;
  while (readSome(out)) {
  }
  return out;
}

}  // namespace sluice::upstream
