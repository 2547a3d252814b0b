# Gatehouse: Node 24 runs the TypeScript sources directly (type stripping), so there is no build output to copy.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# Memory as in `npm start` (override with -e NODE_OPTIONS=..., -e MALLOC_ARENA_MAX=...). Node's builds have no
# pointer compression, so V8 commits a 128 MB young generation and, with a heap limit above 2 GB, lets the old
# generation grow to 4x its live size between full collections. 16 MB semi-spaces and a 1 GB old-space limit (which
# also lowers that factor to about 1.6) took the bench's peak RSS from 484 to 281 MB for about 1.5% more CPU in GC;
# 8 MB semi-spaces and two glibc malloc arenas (instead of up to eight per CPU: the thread pool's threads each kept
# freed memory in arenas of their own) took the peak with logins from 310 to 281 MB, within the bench's noise on
# throughput. A fixed mmap threshold (128 KiB, glibc's default start) keeps each argon2id hash's 19 MiB block out
# of the arenas: glibc otherwise raises the threshold past 19 MiB after the first such block is freed, and later
# blocks, taken from an arena and freed there between other threads' allocations, stayed resident (+54 MB in one
# process of each of three runs at scale; none with the threshold fixed).
# --heap-growing-percent=30 lets the old generation grow to 1.3x its live size between full collections instead of
# V8's computed ~1.7x (83-99 MB instead of 104-122 under the bench); V8 also keeps the pages each collection frees
# pooled and resident, so the smaller heap is fewer pooled pages too: V8's pages 125 -> 105 MB resident, peak RSS
# 242-260 -> 219-220 MB in three alternating rounds, rates within the bench's noise. NODE_OPTIONS does not accept
# that flag, so it is in CMD. The settings apply to each process: with DATABASE_URL the image runs one worker per
# CPU of the container's limit (GATEHOUSE_WORKERS, README "Worker processes"), each inheriting them; size the
# memory limit per worker (~300 MB).
ENV NODE_OPTIONS="--max-semi-space-size=8 --max-old-space-size=1024" \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    GATEHOUSE_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY migrations ./migrations
COPY views ./views
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--heap-growing-percent=30", "src/main.ts"]
