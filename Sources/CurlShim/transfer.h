#ifndef THUMBD_CURLSHIM_TRANSFER_H
#define THUMBD_CURLSHIM_TRANSFER_H

/* What the origin fetch and the S3 requests share: a response body grown up to a limit,
 * header values copied without their surrounding white space, and libcurl's result sorted
 * into the few kinds of failure the callers tell apart. */

#include "curlshim.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Appends n bytes to *body (length *length, room *capacity), growing it by doubling but never
 * past max. Returns 0 when the body would pass max (the caller aborts the transfer: nothing
 * past the limit is read), -1 when memory runs out, 1 when appended. */
static inline int tf_body_append(unsigned char **body, size_t *length, size_t *capacity, size_t max,
                                 const char *data, size_t n) {
    if (*length + n > max) return 0;
    if (*length + n > *capacity) {
        size_t want = *capacity ? *capacity * 2 : 64 * 1024;
        while (want < *length + n) want *= 2;
        if (want > max) want = max;
        unsigned char *grown = realloc(*body, want);
        if (!grown) return -1;
        *body = grown;
        *capacity = want;
    }
    memcpy(*body + *length, data, n);
    *length += n;
    return 1;
}

/* A body being received into a response: its buffer and length, grown up to max. */
typedef struct {
    unsigned char **body;
    size_t *length;
    size_t capacity;
    size_t max;
    int too_large;
} tf_sink;

/* CURLOPT_WRITEFUNCTION with a tf_sink as its data. */
static inline size_t tf_on_body(char *data, size_t size, size_t count, void *user) {
    tf_sink *sink = user;
    size_t n = size * count;
    int appended = tf_body_append(sink->body, sink->length, &sink->capacity, sink->max, data, n);
    if (appended == 0) sink->too_large = 1;
    return appended == 1 ? n : 0; /* 0 aborts the transfer */
}

static inline void tf_copy_value(char *dst, size_t cap, const char *value, size_t len) {
    while (len > 0 && (value[len - 1] == '\r' || value[len - 1] == '\n' || value[len - 1] == ' ')) len--;
    while (len > 0 && (*value == ' ' || *value == '\t')) { value++; len--; }
    if (len >= cap) len = cap - 1;
    memcpy(dst, value, len);
    dst[len] = 0;
}

/* A header field kept in a response struct: its name with the colon, in lower case, and the
 * offset and size of the text field it goes to. */
typedef struct {
    const char *name;
    size_t offset;
    size_t capacity;
} tf_field;

/* Copies the value of the header line `line` (n bytes) into `response` when it is one of `fields`. */
static inline void tf_keep_field(const char *line, size_t n, void *response, const tf_field *fields, size_t count) {
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(fields[i].name);
        if (n > len && strncasecmp(line, fields[i].name, len) == 0) {
            tf_copy_value((char *)response + fields[i].offset, fields[i].capacity, line + len, n - len);
        }
    }
}

/* Keeps the status of the header line `line` (n bytes) in *status when it is the status line:
   known before the body, for a writer and for the pace hook (the answer has begun). */
static inline void tf_keep_status(const char *line, size_t n, long *status) {
    if (n > 9 && strncmp(line, "HTTP/", 5) == 0) {
        const char *space = memchr(line, ' ', n);
        if (space) *status = strtol(space + 1, NULL, 10);
    }
}

/* The pace hook as libcurl's progress callback. */
typedef struct {
    tf_pace_hook hook;
    void *context;
    const long *status;     /* set once the status line is in */
    int cut;
} tf_pace;

static inline int tf_on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)ultotal; (void)ulnow;
    tf_pace *pace = user;
    if (pace->hook(dlnow, *pace->status > 0, pace->context)) {
        pace->cut = 1;
        return 1;
    }
    return 0;
}

/* Asks `pace` as the transfer goes, when it has a hook. */
static inline void tf_watch(CURL *curl, tf_pace *pace) {
    if (!pace->hook) return;
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, tf_on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, pace);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
}

/* The kind of failure of a finished transfer (blocked addresses are the caller's to tell). */
static inline tf_error tf_error_of(CURLcode rc, int too_large) {
    if (rc == CURLE_OK) return TF_OK;
    if (too_large || rc == CURLE_FILESIZE_EXCEEDED) return TF_TOO_LARGE;
    if (rc == CURLE_OPERATION_TIMEDOUT) return TF_TIMEOUT;
    if (rc == CURLE_UNSUPPORTED_PROTOCOL) return TF_PROTOCOL;
    if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_SSL_CONNECT_ERROR ||
        rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
        rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE)
        return TF_CONNECT;
    return TF_OTHER;
}

#endif
