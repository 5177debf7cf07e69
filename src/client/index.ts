export { relay, type RelayHeaders, type RelayOptions } from './relay.ts'
