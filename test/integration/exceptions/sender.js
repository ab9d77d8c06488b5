/* global Buffer */
// A device fleet in its own process: receives report bodies and API URLs over IPC, waits for
// 'go', sends every body at once (own HTTP(S) agents), and replies with each status and text.
const http = require('node:http');
const https = require('node:https');

function post(url, body, ca, agents) {
  const plain = url.startsWith('http:');
  const agent = plain ? agents.http : agents.https;
  return new Promise((resolve, reject) => {
    const req = (plain ? http : https).request(
      `${url}/exception`,
      {
        method: 'POST',
        agent,
        ca,
        headers: {
          'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let job;
process.on('message', async (message) => {
  if (message.type === 'job') {
    job = message;
    process.send({ type: 'ready' });
    return;
  }
  if (message.type !== 'go') return;
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: job.bodies.length }),
    https: new https.Agent({ keepAlive: true, maxSockets: job.bodies.length }),
  };
  try {
    const replies = await Promise.all(
      job.bodies.map((body, i) => post(job.urls[i % job.urls.length], body, job.ca, agents)),
    );
    process.send({ type: 'done', replies });
  } catch (err) {
    process.send({ type: 'error', message: String(err && err.message) });
  } finally {
    agents.http.destroy();
    agents.https.destroy();
    process.disconnect();
  }
});
