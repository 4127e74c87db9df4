#include "transfer.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef struct {
    const tf_request *request;
    tf_response *response;
    tf_sink sink;
    int blocked;
} transfer;

int tf_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1; }

static size_t on_header(char *data, size_t size, size_t count, void *user) {
    transfer *t = user;
    size_t n = size * count;
    static const tf_field fields[] = {
        { "etag:", offsetof(tf_response, etag), sizeof(((tf_response *)0)->etag) },
        { "last-modified:", offsetof(tf_response, last_modified), sizeof(((tf_response *)0)->last_modified) },
        { "content-type:", offsetof(tf_response, content_type), sizeof(((tf_response *)0)->content_type) },
        { "location:", offsetof(tf_response, location), sizeof(((tf_response *)0)->location) },
        { "content-range:", offsetof(tf_response, content_range), sizeof(((tf_response *)0)->content_range) },
    };
    tf_keep_field(data, n, t->response, fields, sizeof fields / sizeof fields[0]);
    tf_keep_status(data, n, &t->response->status);
    return n;
}

static curl_socket_t on_open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *address) {
    transfer *t = user;
    (void)purpose;
    if (!t->request->allow_address(&address->addr, address->addrlen, t->request->context)) {
        t->blocked = 1;
        return CURL_SOCKET_BAD;
    }
    return socket(address->family, address->socktype, address->protocol);
}

void tf_fetch(const tf_request *request, tf_response *response) {
    memset(response, 0, sizeof *response);
    transfer t = { request, response, { &response->body, &response->body_length, 0, request->max_bytes, 0 }, 0 };
    CURL *curl = curl_easy_init();
    if (!curl) {
        response->error = TF_OTHER;
        strcpy(response->message, "cannot start libcurl");
        return;
    }
    struct curl_slist *headers = NULL;
    char line[512];
    if (request->if_none_match) {
        snprintf(line, sizeof line, "If-None-Match: %s", request->if_none_match);
        headers = curl_slist_append(headers, line);
    }
    if (request->if_modified_since) {
        snprintf(line, sizeof line, "If-Modified-Since: %s", request->if_modified_since);
        headers = curl_slist_append(headers, line);
    }
    if (request->range) {
        snprintf(line, sizeof line, "Range: %s", request->range);
        headers = curl_slist_append(headers, line);
    }
    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");          /* never an environment proxy */
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_bytes);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "thumbd/0.1");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, tf_on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t.sink);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &t);
    tf_pace pace = { request->pace, request->pace_context, &response->status, 0 };
    tf_watch(curl, &pace);
    char errors[CURL_ERROR_SIZE] = { 0 };
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errors);

    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
    tf_error kind = pace.cut ? TF_CUT : tf_error_of(rc, t.sink.too_large);
    response->error = kind != TF_OK && kind != TF_TOO_LARGE && t.blocked ? TF_BLOCKED : kind;
    if (rc != CURLE_OK) {
        snprintf(response->message, sizeof response->message, "%s", errors[0] ? errors : curl_easy_strerror(rc));
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
}

void tf_response_free(tf_response *response) {
    free(response->body);
    response->body = NULL;
    response->body_length = 0;
}
