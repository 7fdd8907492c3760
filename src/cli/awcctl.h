// awcctl: the operator CLI. Same configuration sources as awc-worker (the
// environment and an INI file from -c or AWC_CONFIG).
//
// Exit status: 0 done; 1 a runtime error, printed as "awcctl: <error>"
// (never with a secret); 2 a usage error, printed with the usage text.
#ifndef AWC_CLI_AWCCTL_H_
#define AWC_CLI_AWCCTL_H_

namespace awc::cli {

int AwcctlMain(int argc, char** argv);

}  // namespace awc::cli

#endif  // AWC_CLI_AWCCTL_H_
