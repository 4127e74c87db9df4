#ifndef THUMBD_CURLSHIM_H
#define THUMBD_CURLSHIM_H

#include <stddef.h>
#include <sys/socket.h>

/* One HTTP(S) GET with libcurl, without following redirects (the caller checks each hop),
 * ignoring proxy settings from the environment, and asking `allow_address` before any
 * socket is opened: the connect-time check that DNS rebinding cannot get around. */

typedef enum {
    TF_OK = 0,
    TF_TIMEOUT = 1,
    TF_BLOCKED = 2,     /* every address of the host was refused by allow_address */
    TF_TOO_LARGE = 3,   /* the body passed max_bytes (cut off while streaming) */
    TF_CONNECT = 4,     /* DNS failure, refused connection, TLS failure, ... */
    TF_PROTOCOL = 5,    /* not http or https */
    TF_OTHER = 6,
    TF_ENDED = 7,       /* a writer ended the transfer */
    TF_CUT = 8          /* the pace hook cut the transfer (too slow, or past its deadline) */
} tf_error;

/* Asked as a transfer goes (at least about once a second, also while nothing arrives): the
 * body's bytes so far and whether the answer's status line is in. Returns 1 to cut the
 * transfer (TF_CUT). */
typedef int (*tf_pace_hook)(long long received, int head_seen, void *context);

typedef struct {
    const char *url;
    long connect_timeout_ms;
    long total_timeout_ms;
    size_t max_bytes;
    const char *if_none_match;      /* NULL when not revalidating */
    const char *if_modified_since;  /* NULL when not revalidating */
    const char *range;              /* "bytes=A-B", or NULL for the whole body */
    /* Returns 1 to allow connecting to this address. */
    int (*allow_address)(const struct sockaddr *address, socklen_t length, void *context);
    void *context;
    tf_pace_hook pace;              /* NULL: none */
    void *pace_context;
} tf_request;

typedef struct {
    tf_error error;
    long status;
    unsigned char *body;    /* malloc'd; tf_response_free */
    size_t body_length;
    char etag[256];
    char last_modified[64];
    char content_type[128];
    char location[2048];
    char content_range[128];
    char message[256];
} tf_response;

int tf_global_init(void);
void tf_fetch(const tf_request *request, tf_response *response);
void tf_response_free(tf_response *response);

/* One S3 request signed with AWS Signature V4 by libcurl itself (CURLOPT_AWS_SIGV4): GET or
 * HEAD of an object or a listing, PUT of an object (the body as given) or DELETE of one. The URL comes encoded as S3 signs it (the path as it is,
 * the query sorted and encoded): libcurl signs what it is given. Each thread keeps its
 * handle, so connections to the store are reused. Redirects are not followed. */
struct tf_s3_response;

typedef struct {
    const char *url;
    int head;                       /* 1: HEAD (no body) */
    const char *method;             /* NULL: GET (or HEAD); "PUT" (sends body) or "DELETE" */
    const unsigned char *body;      /* PUT's body, body_length bytes */
    size_t body_length;
    const char *sigv4;              /* "aws:amz:REGION:s3" */
    const char *access_key;
    const char *secret_key;
    const char *const *headers;     /* "Name: value" lines, NULL-terminated (may be NULL) */
    long connect_timeout_ms;
    long total_timeout_ms;
    size_t max_bytes;               /* bodies past this are cut off while streaming (TF_TOO_LARGE) */
    /* With a writer, the body is handed to it as it arrives, not kept in the response (whose
     * status and fields are read by then); max_bytes does not apply, and no total timeout
     * either: the pace hook bounds it (a body goes at its client's pace, which the hook does
     * not count). It returns 0 to end the transfer. The thread uses a handle of its own for
     * these, so the writer may make other requests on the same thread. */
    int (*writer)(const unsigned char *data, size_t length, const struct tf_s3_response *head, void *context);
    void *writer_context;
    tf_pace_hook pace;              /* NULL: none */
    void *pace_context;
} tf_s3_request;

typedef struct tf_s3_response {
    tf_error error;
    long status;
    unsigned char *body;            /* malloc'd; tf_s3_response_free */
    size_t body_length;
    long long content_length;       /* -1 when the answer had none */
    char etag[256];
    char last_modified[64];
    char content_type[128];
    char content_range[128];
    char message[256];
} tf_s3_response;

void tf_s3_fetch(const tf_s3_request *request, tf_s3_response *response);
void tf_s3_response_free(tf_s3_response *response);

#endif
