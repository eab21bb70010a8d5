import type { FailedTransactionMetadata } from 'litesvm/dist/internal.js';

/** A transaction error in the JSON shape Solana RPC uses, e.g. `{"InstructionError":[2,{"Custom":1}]}`. */
export type TxErrorJson = string | Record<string, unknown>;

const TX_FIELDLESS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;

const IX_FIELDLESS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged',
  'AccountNotExecutable', 'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync',
  'Custom', 'InvalidError', 'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId', 'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded',
  'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded', 'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable',
  'IncorrectAuthority', 'BorshIoError', 'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow',
  'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded', 'MaxAccountsResized',
  'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits',
] as const;

/** Converts LiteSVM's error object into the RPC JSON shape. */
export function txErrorJson(failed: FailedTransactionMetadata): TxErrorJson {
  const err: unknown = failed.err();
  if (typeof err === 'number') return TX_FIELDLESS[err] ?? `TransactionError(${err})`;
  if (err && typeof err === 'object') {
    const o = err as { index?: number; accountIndex?: number; err?: () => unknown; constructor: { name: string } };
    const name = o.constructor.name;
    if (name === 'TransactionErrorInstructionError' && typeof o.err === 'function') {
      const inner: unknown = o.err();
      let ix: unknown;
      if (typeof inner === 'number') ix = IX_FIELDLESS[inner] ?? `InstructionError(${inner})`;
      else if (inner && typeof inner === 'object' && 'code' in inner) ix = { Custom: (inner as { code: number }).code };
      else if (inner && typeof inner === 'object' && 'msg' in inner) ix = { BorshIoError: (inner as { msg: string }).msg };
      else ix = 'GenericError';
      return { InstructionError: [o.index ?? 0, ix] };
    }
    if (name === 'TransactionErrorDuplicateInstruction') return { DuplicateInstruction: o.index ?? 0 };
    if (name === 'TransactionErrorInsufficientFundsForRent') return { InsufficientFundsForRent: { account_index: o.accountIndex ?? 0 } };
    if (name === 'TransactionErrorProgramExecutionTemporarilyRestricted') {
      return { ProgramExecutionTemporarilyRestricted: { account_index: o.accountIndex ?? 0 } };
    }
  }
  return 'UnknownError';
}

/** Errors after which a transaction is on chain (fee charged, signature recorded) even though it failed. */
export function landedDespiteError(err: TxErrorJson): boolean {
  if (typeof err === 'string') return false;
  return 'InstructionError' in err || 'InsufficientFundsForRent' in err || 'DuplicateInstruction' in err;
}

/**
 * Errors a transaction gets only after its instructions ran (an instruction failed, or an account was left below
 * rent): the runtime recorded its logs and inner instructions. Any other error refused it before execution.
 */
export function ranDespiteError(err: TxErrorJson): boolean {
  if (typeof err === 'string') return false;
  return 'InstructionError' in err || 'InsufficientFundsForRent' in err;
}

/** The message an RPC node prints for an error, e.g. "custom program error: 0x1771". */
export function describeTxError(err: TxErrorJson): string {
  if (typeof err === 'string') return err;
  const ie = err.InstructionError;
  if (Array.isArray(ie)) {
    const [index, detail] = ie as [number, unknown];
    if (detail && typeof detail === 'object' && 'Custom' in detail) {
      return `Error processing Instruction ${index}: custom program error: 0x${(detail as { Custom: number }).Custom.toString(16)}`;
    }
    return `Error processing Instruction ${index}: ${String(detail)}`;
  }
  return JSON.stringify(err);
}
