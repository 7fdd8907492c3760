// awcctl: the operator CLI of awc-worker.
#include "cli/awcctl.h"

int main(int argc, char** argv) { return awc::cli::AwcctlMain(argc, argv); }
