export { relayWebSocket, RELAY_CLOSE_CODE, RELAY_CLOSE_REASON, type RelayTarget } from './relay.js';
