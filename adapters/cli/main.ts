import { startHost } from "./host";

const USAGE = `usage: payrail serve

Environment:
  PORT                 port to listen on (default 4000)
  HOST                 interface to listen on (default 127.0.0.1)
  PAYRAIL_API_KEY      fix the demo account's test key
  PAYRAIL_DATA_DIR     embedded storage folder (default .payrail-data)
  DATABASE_URL         use a PostgreSQL server instead of embedded storage
  PAYRAIL_ALLOW_PRIVATE_WEBHOOKS=1
                       let webhooks reach plain-http and loopback receivers (local development)
`;

async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? "serve";
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command !== "serve") {
    process.stderr.write(`unknown command ${command}\n${USAGE}`);
    return 2;
  }
  const port = process.env.PORT ? Number(process.env.PORT) : 4000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`PORT must be a port number, got ${process.env.PORT}\n`);
    return 2;
  }
  const host = await startHost({
    port,
    hostname: process.env.HOST ?? "127.0.0.1",
    ...(process.env.PAYRAIL_DATA_DIR ? { dataDir: process.env.PAYRAIL_DATA_DIR } : {}),
    ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
    ...(process.env.PAYRAIL_API_KEY ? { apiKey: process.env.PAYRAIL_API_KEY } : {}),
    allowPrivateWebhooks: process.env.PAYRAIL_ALLOW_PRIVATE_WEBHOOKS === "1",
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(
    `payrail listening on ${host.url}\n` +
      `test API key: ${host.apiKey}\n` +
      `try: curl -H "Authorization: Bearer ${host.apiKey}" ${host.url}/v1/balances\n`,
  );
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(`${signal}: shutting down\n`);
      host.stop().then(resolve, (e: unknown) => {
        process.stderr.write(`shutdown failed: ${String(e)}\n`);
        resolve();
      });
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`payrail: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
