#include "transfer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One easy handle per thread, kept between requests: curl_easy_reset keeps its connections,
 * so a worker asks the store over one warm (TLS) connection. The key's destructor cleans the
 * handle up when the thread exits. */
static pthread_key_t handle_key, stream_key;
static pthread_once_t handle_once = PTHREAD_ONCE_INIT;

static void release_handle(void *handle) { curl_easy_cleanup(handle); }
static void make_keys(void) {
    pthread_key_create(&handle_key, release_handle);
    pthread_key_create(&stream_key, release_handle);
}

/* Streamed bodies have a handle of their own: their writer may ask the store something else
 * (on the other handle) while the body is still coming. */
static CURL *thread_handle(int streaming) {
    pthread_once(&handle_once, make_keys);
    pthread_key_t key = streaming ? stream_key : handle_key;
    CURL *curl = pthread_getspecific(key);
    if (curl) {
        curl_easy_reset(curl);
        return curl;
    }
    curl = curl_easy_init();
    if (curl) pthread_setspecific(key, curl);
    return curl;
}

typedef struct {
    const tf_s3_request *request;
    tf_s3_response *response;
    int ended_by_writer;
} stream_sink;

static size_t on_stream_body(char *data, size_t size, size_t count, void *user) {
    stream_sink *sink = user;
    size_t n = size * count;
    if (sink->request->writer((const unsigned char *)data, n, sink->response, sink->request->writer_context)) return n;
    sink->ended_by_writer = 1;
    return 0;
}

static size_t on_s3_header(char *data, size_t size, size_t count, void *user) {
    tf_s3_response *r = user;
    size_t n = size * count;
    static const tf_field fields[] = {
        { "etag:", offsetof(tf_s3_response, etag), sizeof(((tf_s3_response *)0)->etag) },
        { "last-modified:", offsetof(tf_s3_response, last_modified), sizeof(((tf_s3_response *)0)->last_modified) },
        { "content-type:", offsetof(tf_s3_response, content_type), sizeof(((tf_s3_response *)0)->content_type) },
        { "content-range:", offsetof(tf_s3_response, content_range), sizeof(((tf_s3_response *)0)->content_range) },
    };
    tf_keep_field(data, n, r, fields, sizeof fields / sizeof fields[0]);
    tf_keep_status(data, n, &r->status);
    static const char length_name[] = "content-length:";
    size_t len = sizeof length_name - 1;
    if (n > len && strncasecmp(data, length_name, len) == 0) {
        char value[32];
        tf_copy_value(value, sizeof value, data + len, n - len);
        char *end = NULL;
        long long parsed = strtoll(value, &end, 10);
        r->content_length = end != value && *end == 0 && parsed >= 0 ? parsed : -1;
    }
    return n;
}

void tf_s3_fetch(const tf_s3_request *request, tf_s3_response *response) {
    memset(response, 0, sizeof *response);
    response->content_length = -1;
    tf_sink sink = { &response->body, &response->body_length, 0, request->max_bytes, 0 };
    stream_sink streamed = { request, response, 0 };
    CURL *curl = thread_handle(request->writer != NULL);
    if (!curl) {
        response->error = TF_OTHER;
        strcpy(response->message, "cannot start libcurl");
        return;
    }
    /* RGW and S3 refuse a V4 signature without it; the body is not hashed. */
    struct curl_slist *headers = curl_slist_append(NULL, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    for (const char *const *h = request->headers; h && *h; h++) headers = curl_slist_append(headers, *h);
    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);     /* keys are sent as encoded, never normalized */
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");          /* never an environment proxy */
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    tf_pace pace = { request->pace, request->pace_context, &response->status, 0 };
    tf_watch(curl, &pace);
    if (request->writer) {
        /* A streamed body lasts as long as its client takes: the pace hook bounds the store's part. */
        curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 256L * 1024);
    } else {
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    }
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, request->sigv4);
    curl_easy_setopt(curl, CURLOPT_USERNAME, request->access_key);
    curl_easy_setopt(curl, CURLOPT_PASSWORD, request->secret_key);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "thumbd/0.1");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (request->method && strcmp(request->method, "PUT") == 0) {
        /* The body from our memory, sent as it is. (No "Expect:" to turn 100-continue off:
         * libcurl 7.88 signs the empty header it then leaves out, and the store refuses.) */
        headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request->body_length ? (const char *)request->body : "");
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
        curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_bytes);
    } else if (request->method) {
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request->method);
        curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_bytes);
    } else if (request->head) {
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (!request->writer) {
        /* A HEAD announces the object's length: the limit is for bodies actually read. */
        curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_bytes);
    }
    if (request->writer) {
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_stream_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &streamed);
    } else {
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, tf_on_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
    }
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_s3_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, response);
    char errors[CURL_ERROR_SIZE] = { 0 };
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errors);

    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
    response->error = streamed.ended_by_writer ? TF_ENDED : pace.cut ? TF_CUT : tf_error_of(rc, sink.too_large);
    if (rc != CURLE_OK) {
        snprintf(response->message, sizeof response->message, "%s", errors[0] ? errors : curl_easy_strerror(rc));
    }
    /* The handle stays with the thread; only what points at this call's memory goes. */
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, NULL);
    curl_slist_free_all(headers);
}

void tf_s3_response_free(tf_s3_response *response) {
    free(response->body);
    response->body = NULL;
    response->body_length = 0;
}
