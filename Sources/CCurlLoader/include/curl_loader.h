#ifndef SIFT_CURL_LOADER_H
#define SIFT_CURL_LOADER_H

#include <stddef.h>

/// One HTTP GET's outcome: the status and headers and body the server sent, or why there was
/// none (`curl_code` not 0, with `error` saying it).
typedef struct {
  long status;
  char *headers;
  size_t headers_length;
  char *body;
  size_t body_length;
  /// libcurl's result: 0 when the request was made; 7 nothing listening, 6 no such host, 28 no
  /// answer in time, 42 cancelled, others as `error` says; -1 when libcurl cannot be loaded.
  int curl_code;
  char error[512];
} sift_http_response;

/// GETs `url` with libcurl, loaded on first use (`dlopen`): a program that never makes a request
/// never loads it nor the thirty libraries it needs. `authorization` (or NULL) is sent as the
/// `Authorization` header; `*cancelled` becoming non-zero stops the transfer. Blocks until done.
/// The response's buffers are freed by `sift_http_free`.
void sift_http_get(
    const char *url, const char *authorization, long timeout_seconds,
    const volatile int *cancelled, sift_http_response *response);

void sift_http_free(sift_http_response *response);

#endif
