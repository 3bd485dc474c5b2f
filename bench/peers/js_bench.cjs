// The AWS SDK for JavaScript v3 on bench/run's scenarios. Prints one JSON line.
//
//   node js_bench.cjs sign N
//   node js_bench.cjs get  ENDPOINT KEY N CONCURRENCY
//   node js_bench.cjs put  ENDPOINT PREFIX N CONCURRENCY    (keys PREFIX/0 .. N-1)
//   node js_bench.cjs big-get ENDPOINT KEY DEST             (streamed to DEST)
//   node js_bench.cjs big-put ENDPOINT FILE KEY             (@aws-sdk/lib-storage Upload)
//   node js_bench.cjs tail ENDPOINT BUCKET KEY N            (sequential GETs, each timed; the SDK's defaults)
//
// The packages come from FLOE_BENCH_NPM (a scratch folder outside the repo,
// filled by bench/run with npm). Fairness: path style, keep-alive agent with
// as many sockets as requests in flight, checksum extras off (WHEN_REQUIRED),
// one attempt. Concurrency is the SDK's own way: promises on one event loop.
// CPU is process.cpuUsage() over the timed part; the harness adds peak RSS.
"use strict";
const path = require("path");
const fs = require("fs");
const http = require("http");
const { createRequire } = require("module");

const npmDir = process.env.FLOE_BENCH_NPM;
if (!npmDir) throw new Error("FLOE_BENCH_NPM is not set (bench/run installs the SDK there)");
const req = createRequire(path.join(npmDir, "package.json"));
const pkgVersion = (name) => JSON.parse(fs.readFileSync(path.join(npmDir, "node_modules", name, "package.json"))).version;
const version = `@aws-sdk/client-s3 ${pkgVersion("@aws-sdk/client-s3")}, @smithy/signature-v4 ${pkgVersion(
  "@smithy/signature-v4"
)}, node ${process.version}`;

const BUCKET = "bench";
const emit = (o) => console.log(JSON.stringify({ tool: "js-sdk-v3", version, ...o }));
const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function client(endpoint, sockets) {
  const { S3Client } = req("@aws-sdk/client-s3");
  const { NodeHttpHandler } = req("@smithy/node-http-handler");
  return new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true, maxSockets: Math.max(sockets, 1) }),
    }),
  });
}

async function sign(n) {
  const { SignatureV4 } = req("@smithy/signature-v4");
  const { Hash } = req("@smithy/hash-node");
  const signer = new SignatureV4({
    service: "s3",
    region: "eu-west-1",
    sha256: Hash.bind(null, "sha256"),
    uriEscapePath: false,
    applyChecksum: true,
    credentials: { accessKeyId: "AKIDEXAMPLEEXAMPLE12", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  });
  const one = () =>
    signer.sign({
      method: "GET",
      protocol: "https:",
      hostname: "my-bucket.s3.eu-west-1.amazonaws.com",
      path: "/logs/2024/05/17/part-0001.parquet",
      query: {},
      headers: {
        host: "my-bucket.s3.eu-west-1.amazonaws.com",
        range: "bytes=0-1048575",
        "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
      },
    });
  for (let i = 0; i < 500; ++i) await one();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; ++i) await one();
  const dt = Number(process.hrtime.bigint() - t0) / 1e3;
  emit({ op: "sign", us_per_sig: dt / n, n });
}

async function small(op, endpoint, key, n, conc) {
  const { GetObjectCommand, PutObjectCommand } = req("@aws-sdk/client-s3");
  const s3 = client(endpoint, conc);
  const body = Buffer.alloc(1024);
  for (let i = 0; i < 1024; ++i) body[i] = 97 + (i % 26);
  const get = async () => {
    const r = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    const b = await r.Body.transformToByteArray();
    if (b.length !== 1024) throw new Error("short body");
  };
  const put = (k) => s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: k, Body: body }));
  const run = async (count, fn) => {
    let next = 0;
    const lane = async () => {
      while (next < count) await fn(next++);
    };
    await Promise.all(Array.from({ length: conc }, lane));
  };
  await run(Math.max(conc, 20), (i) => (op === "get" ? get() : put(`${key}.warm/${i}`)));
  const c0 = cpuUs();
  const t0 = process.hrtime.bigint();
  await run(n, (i) => (op === "get" ? get() : put(`${key}/${i}`)));
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  emit({ op, inflight: conc, requests: n, rps: n / dt, cpu_us_per_req: (cpuUs() - c0) / n });
  s3.destroy();
}

async function bigGet(endpoint, key, dest) {
  const { GetObjectCommand } = req("@aws-sdk/client-s3");
  const { pipeline } = require("stream/promises");
  const s3 = client(endpoint, 4);
  const t0 = process.hrtime.bigint();
  const r = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  let size = 0;
  r.Body.on("data", (c) => (size += c.length));
  await pipeline(r.Body, fs.createWriteStream(dest));
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  emit({ op: "big-get", bytes: size, mb_per_s: size / dt / 1e6 });
  s3.destroy();
}

async function bigPut(endpoint, file, key) {
  const { Upload } = req("@aws-sdk/lib-storage");
  const s3 = client(endpoint, 4);
  const size = fs.statSync(file).size;
  const t0 = process.hrtime.bigint();
  const up = new Upload({
    client: s3,
    params: { Bucket: BUCKET, Key: key, Body: fs.createReadStream(file, { highWaterMark: 1 << 20 }) },
    queueSize: 4,
    partSize: 16 << 20,
  });
  await up.done();
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  emit({ op: "big-put", bytes: size, mb_per_s: size / dt / 1e6 });
  s3.destroy();
}

// The tail scenario (bench/scenarios/tail.py): n sequential GETs of one
// small object, each timed, with the SDK's own defaults but path style.
async function tail(endpoint, bucket, key, n) {
  const { S3Client, GetObjectCommand } = req("@aws-sdk/client-s3");
  const s3 = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true });
  const get = async () => {
    const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    await r.Body.transformToByteArray();
  };
  await get();  // a connection open, the signer ready
  const ms = [];
  const c0 = cpuUs();
  for (let i = 0; i < n; ++i) {
    const t0 = process.hrtime.bigint();
    await get();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = cpuUs() - c0;
  ms.sort((x, y) => x - y);
  const pct = (q) => ms[Math.min(ms.length, Math.max(1, Math.ceil(q * ms.length))) - 1];
  emit({ op: "tail", requests: n, p50_ms: pct(0.5), p99_ms: pct(0.99), p999_ms: pct(0.999), cpu_us_per_get: cpu / n });
  s3.destroy();
}

const a = process.argv.slice(2);
const main = {
  sign: () => sign(Number(a[1])),
  get: () => small("get", a[1], a[2], Number(a[3]), Number(a[4])),
  put: () => small("put", a[1], a[2], Number(a[3]), Number(a[4])),
  "big-get": () => bigGet(a[1], a[2], a[3]),
  "big-put": () => bigPut(a[1], a[2], a[3]),
  tail: () => tail(a[1], a[2], a[3], Number(a[4])),
  version: async () => emit({ op: "version" }),
}[a[0]];
if (!main) {
  console.error("usage: see the head of js_bench.cjs");
  process.exit(2);
}
main().catch((e) => {
  console.error(`js_bench: ${e.stack || e}`);
  process.exit(1);
});
