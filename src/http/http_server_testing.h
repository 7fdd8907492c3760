// Test-only read-back of an HttpServer (http/http_server.h): how many
// connections it holds open, for the tests of its connection limit and
// timeouts.
#ifndef AWC_HTTP_HTTP_SERVER_TESTING_H_
#define AWC_HTTP_HTTP_SERVER_TESTING_H_

#include "http/http_server.h"

namespace awc::http {

// Connections open now.
int OpenConnectionsForTest(const HttpServer& server);

}  // namespace awc::http

#endif  // AWC_HTTP_HTTP_SERVER_TESTING_H_
