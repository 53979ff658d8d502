// sluice-mock-provider: speaks the Anthropic, OpenAI Chat, OpenAI Responses and Gemini wires with
// scriptable faults, for tests, the demo and benchmarks. See docs/mock-provider.md.
//
// Prints exactly one line to stdout once it accepts connections: "listening on HOST:PORT".
// SIGTERM/SIGINT stop it with exit 0. Exit 2 on bad flags, 1 when it cannot listen.

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <Poco/Exception.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/ThreadPool.h>

#include "tools/mock-provider/handler_factory.h"
#include "tools/mock-provider/server_context.h"

namespace {

std::string envOr(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sluice-mock-provider: a scriptable fake of the four LLM provider wires"};
  std::string listen = "127.0.0.1:0";
  std::string fixtures = envOr("SLUICE_FIXTURES_DIR", "tests/fixtures");
  std::string api_key;
  std::string aws_access_key_id = sluice::mock::ServerContext::kAwsAccessKeyId;
  std::string aws_secret_access_key = sluice::mock::ServerContext::kAwsSecretAccessKey;
  int aws_lifetime_s = 900;
  std::string aws_container_token;
  int aws_delay_ms = 0;
  int threads = 256;
  bool quiet = false;
  std::string gcp_service_account;
  sluice::mock::CloudConfig clouds;
  int token_lifetime = 3600;
  app.add_option("--listen", listen, "HOST:PORT to listen on (port 0: any free port)")
      ->envname("SLUICE_MOCK_LISTEN")
      ->capture_default_str();
  app.add_option("--fixtures", fixtures, "directory the `fixture` script field is relative to")
      ->envname("SLUICE_FIXTURES_DIR")
      ->capture_default_str();
  app.add_option("--api-key", api_key, "accept only this API key (default: any non-empty key)")
      ->envname("SLUICE_MOCK_API_KEY");
  app.add_option("--aws-access-key-id", aws_access_key_id, "the AWS access key Bedrock signatures are checked for")
      ->envname("SLUICE_MOCK_AWS_ACCESS_KEY_ID")
      ->capture_default_str();
  app.add_option("--aws-secret-access-key", aws_secret_access_key, "its secret (signatures are recomputed with it)")
      ->envname("SLUICE_MOCK_AWS_SECRET_ACCESS_KEY");
  app.add_option("--aws-credentials-lifetime", aws_lifetime_s,
                 "seconds the temporary credentials of the mock's STS, container and IMDS endpoints live")
      ->envname("SLUICE_MOCK_AWS_CREDENTIALS_LIFETIME")
      ->check(CLI::Range(1, 43200))
      ->capture_default_str();
  app.add_option("--aws-container-token", aws_container_token,
                 "the Authorization the container-credentials endpoint wants (default: any)")
      ->envname("SLUICE_MOCK_AWS_CONTAINER_TOKEN");
  app.add_option("--aws-credentials-delay-ms", aws_delay_ms,
                 "milliseconds the STS, container and IMDS endpoints wait before answering")
      ->envname("SLUICE_MOCK_AWS_CREDENTIALS_DELAY_MS")
      ->check(CLI::Range(0, 60000))
      ->capture_default_str();
  app.add_option("--gcp-service-account", gcp_service_account,
                 "a Google service-account key file: its JWT grants are verified with the key's public half")
      ->envname("SLUICE_MOCK_GCP_SERVICE_ACCOUNT");
  std::string gcp_authorized_user;
  app.add_option("--gcp-authorized-user", gcp_authorized_user,
                 "a Google authorized_user file: the token endpoint accepts its refresh-token grant")
      ->envname("SLUICE_MOCK_GCP_AUTHORIZED_USER");
  app.add_option("--azure-tenant-id", clouds.entra.tenant_id, "the Entra ID tenant the token endpoint serves")
      ->capture_default_str();
  app.add_option("--azure-client-id", clouds.entra.client_id, "the application's client id")->capture_default_str();
  app.add_option("--azure-client-secret", clouds.entra.client_secret, "its client secret")
      ->envname("SLUICE_MOCK_AZURE_CLIENT_SECRET");
  app.add_option("--azure-federated-token-file", clouds.entra.federated_token_file,
                 "a federated assertion is accepted when it equals this file's text (re-read each time)");
  app.add_option("--token-lifetime", token_lifetime, "seconds the clouds' access tokens live")
      ->envname("SLUICE_MOCK_TOKEN_LIFETIME")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--threads", threads, "maximum concurrent connections")
      ->envname("SLUICE_MOCK_THREADS")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_flag("--quiet", quiet, "no per-request log lines on stderr")->envname("SLUICE_MOCK_QUIET");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  // Handle the stop signals on this thread only; every thread started below inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  sluice::mock::ServerContext context(fixtures, api_key.empty() ? std::nullopt : std::optional(api_key), quiet,
                                      aws_access_key_id, aws_secret_access_key);
  context.awsKeys().configure(std::chrono::seconds(aws_lifetime_s), aws_container_token);
  context.awsKeys().setDelay(std::chrono::milliseconds(aws_delay_ms));
  if (!gcp_service_account.empty()) {
    std::ifstream in(gcp_service_account);
    std::stringstream text;
    text << in.rdbuf();
    auto account = sluice::mock::loadGoogleAccount(text.str());
    if (!in || !account) {
      std::cerr << "sluice-mock-provider: --gcp-service-account: " << (account ? "cannot be read" : account.error()) << "\n";
      return 2;
    }
    clouds.google = std::move(*account);
  }
  if (!gcp_authorized_user.empty()) {
    std::ifstream in(gcp_authorized_user);
    std::stringstream text;
    text << in.rdbuf();
    auto user = sluice::mock::loadGoogleUser(text.str());
    if (!in || !user) {
      std::cerr << "sluice-mock-provider: --gcp-authorized-user: " << (user ? "cannot be read" : user.error()) << "\n";
      return 2;
    }
    clouds.google_user = std::move(*user);
  }
  clouds.token_lifetime = std::chrono::seconds(token_lifetime);
  context.setClouds(std::move(clouds));
  Poco::ThreadPool pool("mock", 4, threads, 60);
  std::unique_ptr<Poco::Net::HTTPServer> server;
  std::string bound;
  try {
    Poco::Net::ServerSocket socket;
    socket.bind(Poco::Net::SocketAddress(listen), /*reuseAddress=*/true);
    socket.listen(1024);
    bound = socket.address().toString();
    auto* params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(threads);
    params->setMaxQueued(4096);
    params->setKeepAlive(true);
    params->setKeepAliveTimeout(Poco::Timespan(30, 0));
    params->setTimeout(Poco::Timespan(60, 0));
    server = std::make_unique<Poco::Net::HTTPServer>(new sluice::mock::HandlerFactory(context), pool, socket, params);
    server->start();
  } catch (const Poco::Exception& e) {
    std::cerr << "sluice-mock-provider: cannot listen on " << listen << ": " << e.displayText() << "\n";
    return 1;
  }

  std::fprintf(stdout, "listening on %s\n", bound.c_str());
  std::fflush(stdout);
  context.log("serving the anthropic, openai-chat, openai-responses and gemini wires, Bedrock, Vertex AI, Azure OpenAI and their token endpoints; fixtures in " + fixtures);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  context.log(std::string("stopping on ") + (signal_number == SIGINT ? "SIGINT" : "SIGTERM"));
  context.stop();
  server->stopAll(/*abortCurrent=*/true);
  pool.joinAll();
  return 0;
}
