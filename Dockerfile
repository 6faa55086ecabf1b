# Les Clefs du Trésor — container image.
#
#   docker build --build-arg REVISION=$(git rev-parse HEAD) -t clefs .
#   docker run -d --env-file .env -v clefs-data:/data \
#     -e DATA_PATH=/data/clefs.db -e METRICS_ADDR=0.0.0.0:9090 clefs
#
# .env must set DISCORD_TOKEN. The two -e are needed with a .env copied from
# .env.example: a variable present in --env-file, even empty, overrides the
# image's ENV below, and METRICS_ADDR= would turn off the /healthz that the
# HEALTHCHECK asks (DATA_PATH=./data/clefs.db would put the store outside
# the volume).
#
# Two stages: a Go toolchain builds one static binary (modules come from the
# module proxy, nothing else is fetched), and the final image holds only that
# binary on distroless/static (CA certificates, /etc/passwd, no shell), run as
# the unprivileged "nonroot" user (uid 65532).

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
# The embedded store's directory, owned by the runtime user so that a fresh
# named volume mounted here is writable.
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
# soft limit makes the collector work harder past 40 MiB, keeping the process
# under 64 MiB. Override either with docker run -e.
ENV GOGC=400 \
    GOMEMLIMIT=40MiB
VOLUME ["/data"]
# /metrics and /healthz (not published unless you ask: -p 9090:9090). With
# INTERACTIONS_ADDR=0.0.0.0:8080 the HTTP interactions endpoint listens on
# 8080 (publish it to your TLS reverse proxy: -p 127.0.0.1:8080:8080).
EXPOSE 9090 8080
# Healthy when the transport serves (every gateway shard connected, or the
# HTTP endpoint listening) and the store answers. The image has
# no shell nor curl: the binary probes itself (clefs healthcheck reads
# METRICS_ADDR; set it to "" and the check reports unhealthy).
# Timing: the bot checks its token, opens the store and connects within a
# few seconds. During the start period (60 s) Docker probes every 2 s
# (--start-interval: Docker Engine 25 or later, whose builder knows the
# flag) and failures there do not count: the container turns
# "healthy" at the first probe after the bot has connected, about 2 s
# later. After that one probe every 30 s, and 3 failures in a row (about
# 1.5 minutes) mark it "unhealthy".
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --start-interval=2s --retries=3 \
  CMD ["/clefs", "healthcheck", "-timeout", "4s"]
ENTRYPOINT ["/clefs"]
