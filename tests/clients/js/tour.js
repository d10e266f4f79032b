// A day's use of the official JavaScript library (zulip-js) against a teamchat server:
// log in with a password, read, write, react, flag, and follow events. Prints one JSON
// object with what each call answered; tests/e2e/test_js_client.py reads it.
//
// Run: node tour.js <site> <sender email> <sender password> <reader email> <reader password>
const zulipInit = require('zulip-js');

const [site, senderEmail, senderPassword, readerEmail, readerPassword] = process.argv.slice(2);
const results = {};

async function call(name, request) {
  try {
    results[name] = await request();
  } catch (error) {
    results[name] = { thrown: String(error) };
  }
  return results[name];
}

function waitForMessages(reader, count, seconds) {
  // callOnEachEvent registers its own queue and polls until the process ends.
  return new Promise((resolve) => {
    const seen = [];
    const timer = setTimeout(() => resolve(seen), seconds * 1000);
    reader.callOnEachEvent((event) => {
      if (event.type !== 'message') return;
      seen.push(event.message.content);
      if (seen.length >= count) {
        clearTimeout(timer);
        resolve(seen);
      }
    }, ['message']);
  });
}

async function main() {
  const sender = await zulipInit({ username: senderEmail, password: senderPassword, realm: site });
  const reader = await zulipInit({ username: readerEmail, password: readerPassword, realm: site });
  results.logged_in = Boolean(sender.config.apiKey) && Boolean(reader.config.apiKey);
  await call('settings', () => sender.server.settings());
  await call('me', () => sender.users.me.getProfile());
  await call('users', () => sender.users.retrieve());
  await call('subscribe', () => sender.users.me.subscriptions.add({
    subscriptions: JSON.stringify([{ name: 'js tour' }]),
    principals: JSON.stringify([senderEmail, readerEmail]),
  }));
  const channel = await call('stream_id', () => sender.streams.getStreamId('js tour'));
  const sent = await call('send', () => sender.messages.send({
    to: 'js tour', type: 'stream', subject: 'hello', content: 'first **post** :tada:',
  }));
  await call('send_dm', () => sender.messages.send({
    to: [readerEmail], type: 'private', content: 'a direct word',
  }));
  await call('topics', () => sender.streams.topics.retrieve({ stream_id: channel.stream_id }));
  await call('newest', () => reader.messages.retrieve({
    anchor: 'newest', num_before: 5, num_after: 0,
    narrow: [{ operator: 'stream', operand: 'js tour' }],
  }));
  await call('by_id', () => reader.messages.getById({ message_id: sent.id }));
  await call('render', () => sender.messages.render({ content: '**bold** :smile:' }));
  await call('edit', () => sender.messages.update({ message_id: sent.id, content: 'first post, edited' }));
  await call('history', () => reader.messages.getHistoryById({ message_id: sent.id }));
  await call('react', () => reader.reactions.add({ message_id: sent.id, emoji_name: 'tada' }));
  await call('reacted', () => reader.messages.getById({ message_id: sent.id }));
  await call('unreact', () => reader.reactions.remove({ message_id: sent.id, emoji_name: 'tada' }));
  await call('star', () => reader.messages.flags.add({ flag: 'starred', messages: [sent.id] }));
  await call('read', () => reader.messages.flags.add({ flag: 'read', messages: [sent.id] }));
  await call('typing', () => reader.typing.send({ to: [results.me.user_id], op: 'start' }));
  const queue = await call('register', () => reader.queues.register({ event_types: ['message'] }));
  await call('send_event', () => sender.messages.send({
    to: 'js tour', type: 'stream', subject: 'hello', content: 'for the queue',
  }));
  await call('events', () => reader.events.retrieve({
    queue_id: queue.queue_id, last_event_id: -1, dont_block: false,
  }));
  await call('deregister', () => reader.queues.deregister({ queue_id: queue.queue_id }));
  const arriving = waitForMessages(reader, 3, 30);
  await new Promise((resolve) => setTimeout(resolve, 1500));   // its queue is registered
  for (const n of [1, 2, 3]) {
    await sender.messages.send({ to: 'js tour', type: 'stream', subject: 'each', content: `each ${n}` });
  }
  results.each_event = await arriving;
  await call('delete', () => sender.messages.deleteById({ message_id: sent.id }));
  process.stdout.write(JSON.stringify(results) + '\n');
  process.exit(0);
}

main().catch((error) => {
  process.stdout.write(JSON.stringify({ ...results, failed: String(error) }) + '\n');
  process.exit(1);
});
