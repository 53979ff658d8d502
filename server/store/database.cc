#include "server/store/database.h"

#include <pqxx/pqxx>

namespace sluice::store {

bool ping(const std::string& url, std::string* error) {
  try {
    pqxx::connection connection(url.find("connect_timeout") == std::string::npos
                                    ? url + (url.find('?') == std::string::npos ? "?" : "&") + "connect_timeout=3"
                                    : url);
    pqxx::nontransaction query(connection);
    query.exec1("SELECT 1");
    return true;
  } catch (const std::exception& failure) {
    if (error) *error = failure.what();
    return false;
  }
}

}  // namespace sluice::store
