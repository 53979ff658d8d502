#pragma once
// The server side of one client connection, in place of Poco's HTTPServerSession: the socket and
// the read buffer the connection keeps from request to request (client_socket.h), the request and
// response objects the handlers see (server_request.h, server_response.h, Poco's
// HTTPServerRequest and HTTPServerResponse interfaces), and their body streams (body_reader.h,
// body_writer.h). Include the one you need; this header brings them all.
//
// Not thread-safe: a connection belongs to one thread. (The client watch only polls the fd.)

#include "server/http/body_reader.h"
#include "server/http/body_writer.h"
#include "server/http/client_socket.h"
#include "server/http/server_request.h"
#include "server/http/server_response.h"
