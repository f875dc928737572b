#include "curl_loader.h"

#ifdef __linux__
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libcurl's ABI, as curl/curl.h defines it (stable since 7.x): no header is needed to build.
enum {
  OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
  OPT_TIMEOUT = 13, OPT_HTTPHEADER = 10023, OPT_HEADERDATA = 10029, OPT_NOPROGRESS = 43,
  OPT_XFERINFODATA = 10057, OPT_CONNECTTIMEOUT = 78, OPT_HEADERFUNCTION = 20079,
  OPT_NOSIGNAL = 99, OPT_XFERINFOFUNCTION = 20219,
};
static const int INFO_RESPONSE_CODE = 0x200000 + 2;
static const long GLOBAL_DEFAULT = 3;

typedef void CURL;
struct curl_slist;
static struct {
  int (*global_init)(long);
  CURL *(*easy_init)(void);
  int (*easy_setopt)(CURL *, int, ...);
  int (*easy_perform)(CURL *);
  int (*easy_getinfo)(CURL *, int, ...);
  void (*easy_cleanup)(CURL *);
  const char *(*easy_strerror)(int);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  int loaded;
  char failure[256];
} curl;

static pthread_once_t loading = PTHREAD_ONCE_INIT;

static void load(void) {
  const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", NULL};
  void *library = NULL;
  for (int i = 0; names[i] && !library; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(curl.failure, sizeof curl.failure, "libcurl is not installed (libcurl.so.4: %s)",
             dlerror());
    return;
  }
#define FIND(field, symbol)                                                              \
  if (!(*(void **)&curl.field = dlsym(library, symbol))) {                               \
    snprintf(curl.failure, sizeof curl.failure, "libcurl has no %s", symbol);            \
    return;                                                                              \
  }
  FIND(global_init, "curl_global_init")
  FIND(easy_init, "curl_easy_init")
  FIND(easy_setopt, "curl_easy_setopt")
  FIND(easy_perform, "curl_easy_perform")
  FIND(easy_getinfo, "curl_easy_getinfo")
  FIND(easy_cleanup, "curl_easy_cleanup")
  FIND(easy_strerror, "curl_easy_strerror")
  FIND(slist_append, "curl_slist_append")
  FIND(slist_free_all, "curl_slist_free_all")
#undef FIND
  if (curl.global_init(GLOBAL_DEFAULT) != 0) {
    snprintf(curl.failure, sizeof curl.failure, "libcurl could not start");
    return;
  }
  curl.loaded = 1;
}

typedef struct {
  char *bytes;
  size_t length;
  size_t capacity;
} buffer;

static size_t append(char *data, size_t size, size_t count, void *target) {
  buffer *into = target;
  size_t length = size * count;
  if (into->length + length + 1 > into->capacity) {
    size_t capacity = into->capacity ? into->capacity : 65536;
    while (capacity < into->length + length + 1) capacity *= 2;
    char *grown = realloc(into->bytes, capacity);
    if (!grown) return 0;  // libcurl stops with a write error
    into->bytes = grown;
    into->capacity = capacity;
  }
  memcpy(into->bytes + into->length, data, length);
  into->length += length;
  into->bytes[into->length] = 0;
  return length;
}

static int progress(void *cancelled, long long a, long long b, long long c, long long d) {
  (void)a, (void)b, (void)c, (void)d;
  return *(const volatile int *)cancelled ? 1 : 0;
}

void sift_http_get(const char *url, const char *authorization, long timeout_seconds,
                   const volatile int *cancelled, sift_http_response *response) {
  memset(response, 0, sizeof *response);
  pthread_once(&loading, load);
  if (!curl.loaded) {
    response->curl_code = -1;
    snprintf(response->error, sizeof response->error, "%s", curl.failure);
    return;
  }
  CURL *handle = curl.easy_init();
  if (!handle) {
    response->curl_code = -1;
    snprintf(response->error, sizeof response->error, "libcurl could not make a request");
    return;
  }
  buffer body = {0}, headers = {0};
  struct curl_slist *list = NULL;
  char header[8192];
  if (authorization) {
    snprintf(header, sizeof header, "Authorization: %s", authorization);
    list = curl.slist_append(list, header);
  }
  char errors[256] = {0};
  curl.easy_setopt(handle, OPT_URL, url);
  curl.easy_setopt(handle, OPT_NOSIGNAL, 1L);
  curl.easy_setopt(handle, OPT_CONNECTTIMEOUT, 10L);
  curl.easy_setopt(handle, OPT_TIMEOUT, timeout_seconds);
  curl.easy_setopt(handle, OPT_ERRORBUFFER, errors);
  curl.easy_setopt(handle, OPT_WRITEFUNCTION, append);
  curl.easy_setopt(handle, OPT_WRITEDATA, &body);
  curl.easy_setopt(handle, OPT_HEADERFUNCTION, append);
  curl.easy_setopt(handle, OPT_HEADERDATA, &headers);
  curl.easy_setopt(handle, OPT_NOPROGRESS, 0L);
  curl.easy_setopt(handle, OPT_XFERINFOFUNCTION, progress);
  curl.easy_setopt(handle, OPT_XFERINFODATA, (void *)cancelled);
  if (list) curl.easy_setopt(handle, OPT_HTTPHEADER, list);
  int code = curl.easy_perform(handle);
  response->curl_code = code;
  if (code == 0) {
    curl.easy_getinfo(handle, INFO_RESPONSE_CODE, &response->status);
    response->body = body.bytes;
    response->body_length = body.length;
    response->headers = headers.bytes;
    response->headers_length = headers.length;
  } else {
    snprintf(response->error, sizeof response->error, "%s",
             errors[0] ? errors : curl.easy_strerror(code));
    free(body.bytes);
    free(headers.bytes);
  }
  if (list) curl.slist_free_all(list);
  curl.easy_cleanup(handle);
}

void sift_http_free(sift_http_response *response) {
  free(response->body);
  free(response->headers);
  response->body = NULL;
  response->headers = NULL;
}
#else
// On Apple's platforms `URLSession` makes the requests; nothing here is used.
void sift_http_get(const char *url, const char *authorization, long timeout_seconds,
                   const volatile int *cancelled, sift_http_response *response) {
  (void)url, (void)authorization, (void)timeout_seconds, (void)cancelled;
  response->curl_code = -1;
}
void sift_http_free(sift_http_response *response) { (void)response; }
#endif
