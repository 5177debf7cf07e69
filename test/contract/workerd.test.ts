import { describeRuntime } from './describe-runtime.ts'

// The contract in workerd, as the Worker is deployed: wrangler.toml's compatibility date and flags.
describeRuntime('workerd')
