// The alerts bench's webhook receiver, a child process: answers every POST with 200 at once and
// keeps, per request, when it arrived and its webhook-id. The bench asks for what arrived since a
// mark over IPC ({ from } → { count, unique, duplicates, times }). GET answers 200 (readiness).
import http from 'node:http';

const times: number[] = [];
const seen = new Set<string>();
let duplicates = 0;

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200).end('ok');
    return;
  }
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id'] ?? '');
    if (seen.has(id)) duplicates += 1;
    else seen.add(id);
    times.push(Date.now());
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 65_000;

process.on('message', (message: { from?: number }) => {
  const from = message.from ?? 0;
  process.send!({ count: times.length, unique: seen.size, duplicates, times: times.slice(from) });
});

server.listen(Number(process.env.PORT), '127.0.0.1');
