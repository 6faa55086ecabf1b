# Les Clefs du Trésor — container image.
#
#   docker build --build-arg REVISION=$(git rev-parse HEAD) -t clefs .
#   docker run -d --env-file .env -v clefs-data:/data \
#     -e DATA_PATH=/data/clefs.db -e METRICS_ADDR=0.0.0.0:9090 clefs
#
# .env must set DISCORD_TOKEN. The two -e matter with a .env copied from
# .env.example: a variable present in --env-file, even empty, overrides the
# image's ENV below. METRICS_ADDR= would turn off the /healthz that the
# HEALTHCHECK asks, so the container would never be healthy; and
# DATA_PATH=./data/clefs.db, relative to the working directory /data, would
# put the store at /data/data/clefs.db: still in the volume, but not where
# the image's default (and a container run without that .env) looks for it.
# With REDIS_URL set, DATA_PATH is not used and the volume stays empty.
#
# Two stages: a Go toolchain builds one static binary (besides the two base
# images, only Go modules are fetched, from the module proxy), and the final
# image holds only that binary on distroless/static (CA certificates,
# /etc/passwd, no shell), run as the unprivileged "nonroot" user (uid 65532).
# .dockerignore keeps .git, .env, store files, dumps and deploy/ out of the
# build context.

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so that this layer is cached until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
# The commit, for clefs version: .git is not copied (.dockerignore), so Go
# cannot stamp it; --build-arg REVISION passes it (see the top). Declared
# here, after the module download, so that a new revision reuses the layers
# above.
ARG REVISION=
# CGO off: a static binary that needs no libc. -trimpath and -s -w: no local
# paths, no symbol tables. -X sets internal/buildinfo.Revision.
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false \
      -ldflags="-s -w -X github.com/lesclefsdutresor/clefs/internal/buildinfo.Revision=${REVISION}" \
      -o /out/clefs . \
 && mkdir -p /out/data

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/clefs /clefs
# The embedded store's directory (DATA_PATH=/data/clefs.db below; the
# binary's own default, ./data/clefs.db, is relative to the working
# directory), owned by the runtime user so that a fresh named volume
# mounted here, which Docker fills from the image, is writable.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
ENV DATA_PATH=/data/clefs.db \
    METRICS_ADDR=0.0.0.0:9090 \
    LOG_FORMAT=json
# The garbage collector: the live heap is a few MiB (the state is in the
# store) and each interaction allocates a few KiB, so Go's default GOGC=100
# collects several times a second under load, taking CPU from the handlers.
# GOGC=400 lets the heap grow to 5x the live data between collections; the
# soft limit (memory the Go runtime manages, not the whole process) makes
# the collector work harder as that nears 40 MiB. It is a target, not a
# cap: set a container memory limit (docker run -m) for a hard one, with
# room above 40 MiB. Override either with docker run -e.
ENV GOGC=400 \
    GOMEMLIMIT=40MiB
VOLUME ["/data"]
# METRICS_ADDR serves /metrics, /healthz and /version, private (not
# published unless you ask: -p 9090:9090). With PUBLIC_ADDR=0.0.0.0:8081 the
# players' pages, /fair and the Activity (with DISCORD_CLIENT_SECRET), listen
# on 8081; with INTERACTIONS_ADDR=0.0.0.0:8080 the HTTP interactions
# endpoint (and /fair) on 8080. Publish those to your TLS reverse proxy
# (-p 127.0.0.1:8081:8081).
EXPOSE 9090 8080 8081
# Healthy when the transport serves (every gateway shard has had its first
# READY and none has been disconnected for more than 30 s; or the HTTP
# endpoint serving) and the store answers a ping. The image has no shell
# nor curl: the binary probes itself (clefs healthcheck asks /healthz on
# METRICS_ADDR; set it to "" and the check reports unhealthy).
# Timing: the bot checks its token, opens the store and connects within a
# few seconds. During the start period (60 s) Docker probes every 2 s
# (--start-interval: Docker Engine 25 or later, whose builder knows the
# flag) and failures there do not count: the container turns
# "healthy" at the first probe after the bot has connected, at most 2 s
# later. After that one probe every 30 s, and 3 failures in a row (about
# 1.5 minutes) mark it "unhealthy".
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --start-interval=2s --retries=3 \
  CMD ["/clefs", "healthcheck", "-timeout", "4s"]
ENTRYPOINT ["/clefs"]
