import Fastify from 'fastify';

/**
 * The ceiling: a bare Fastify hello-world server, started the way the service is (its own process,
 * production settings, no logging below warn). Scenario throughput is reported as a ratio to it.
 */
const app = Fastify({ logger: { level: 'warn' } });
app.get('/hello', async () => ({ hello: 'world' }));
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
