export { relayWebSocket } from './relay.js';
