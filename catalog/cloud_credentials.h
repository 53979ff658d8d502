#pragma once
// The cloud platforms' credentials of a catalog Credential (credentials.yaml `aws:`, `gcp:`,
// `azure:`), as the catalog compiler resolves them. Plain values; see catalog/catalog.h.

#include <optional>
#include <string>

namespace sluice::catalog {

// AWS credentials for a `platform: bedrock` provider (requests signed with SigV4).
struct AwsCredential {
  // `chain: default`: the standard AWS chain. Its first link, the environment variables
  // AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, is read at load (into the keys
  // below); the others (web identity, container credentials, IMDSv2) at run time.
  bool chain = false;
  std::string role_arn;  // optional with chain: assumed with STS AssumeRole from the chain's credentials
  std::string access_key_id_ref, secret_access_key_ref, session_token_ref;  // env:/file: refs
  std::optional<std::string> access_key_id;      // resolved; nullopt when it could not be read
  std::optional<std::string> secret_access_key;  // resolved; never logged or echoed
  std::string session_token;                     // "" for long-term keys
};

// Google credentials for a `platform: vertex` provider (an OAuth access token per call).
struct GcpCredential {
  // `chain: default`: application default credentials at run time (GOOGLE_APPLICATION_CREDENTIALS,
  // then the metadata server).
  bool chain = false;
  std::string service_account_ref;                // env:/file: ref of a service-account key file
  std::optional<std::string> service_account;     // its JSON; nullopt when unreadable; never logged
};

// Azure credentials for a `platform: azure` provider: an api-key, Entra ID client credentials, or
// `chain: default` (workload identity, then managed identity) at run time.
struct AzureCredential {
  bool chain = false;
  std::string api_key_ref, client_secret_ref;     // env:/file: refs
  std::optional<std::string> api_key;             // resolved; never logged
  std::string tenant_id, client_id;               // with client_secret (not secrets)
  std::optional<std::string> client_secret;       // resolved; never logged
};

}  // namespace sluice::catalog
